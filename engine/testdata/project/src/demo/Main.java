package demo;

/** Uses Greeter and Names; the engine tests put their hunks in run(). */
public class Main {
    public static void main(String[] args) {
        new Main().run();
    }

    void run() {
        Greeter g = new Greeter("world");
        Names names = new Names();
        String s = "text";
        names.add(g.getName());
        System.out.println(g.greet() + s.length());
    }
}
