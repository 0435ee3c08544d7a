package demo;

public class Sides {
    sealed interface Shape permits Circle, Square, Triangle {}
    record Circle(double r) implements Shape {}
    record Square(double side) implements Shape {}
    record Triangle(double a, double b, double c) implements Shape {}

    static boolean polygon(Shape shape) {
        return switch (shape) {
            case Circle c -> false;
            case Square q -> true;
            case Triangle t -> true;
        };
    }
}
