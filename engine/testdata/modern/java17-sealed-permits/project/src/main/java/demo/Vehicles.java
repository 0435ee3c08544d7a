package demo;

public class Vehicles {
    interface Vehicle {}
    static final class Car implements Vehicle {}
    static final class Bike implements Vehicle {}
}
