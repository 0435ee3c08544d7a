package demo;

public class Describe {
    static String describe(Object o) {
        return switch (o) {
            case String s -> "text " + s;
            default -> "other";
        };
    }
}
