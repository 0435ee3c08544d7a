package demo;

public class Sizes {
    static String size(Object o) {
        return switch (o) {
            case Integer i -> "int";
            case String s -> "string";
            default -> "other";
        };
    }
}
