package demo;

public class Boxes {
    record Box<T>(T value) {}

    static int length(Box<String> box) {
        return switch (box) {
            case Box<String> b -> b.value().length();
        };
    }
}
