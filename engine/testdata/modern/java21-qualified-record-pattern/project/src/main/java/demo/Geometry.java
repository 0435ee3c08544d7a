package demo;

public class Geometry {
    sealed interface Shape permits Shape.Circle, Shape.Square {
        record Circle(double r) implements Shape {}
        record Square(double side) implements Shape {}
    }

    static double area(Shape shape) {
        return switch (shape) {
            case Shape.Circle c -> c.r() * c.r();
            case Shape.Square(double side) -> side * side;
        };
    }
}
