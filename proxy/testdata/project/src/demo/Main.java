package demo;

public class Main {
    public static void main(String[] args) {
        Greeter greeter = new Greeter("world");
        System.out.println(greeter.greet());
        int missing = undefinedVariable;
    }
}
