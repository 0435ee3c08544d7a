package demo;

/** A greeter with a name: the receiver of most engine tests. */
public class Greeter {
    /** How a greeting sounds. */
    public enum Tone { PLAIN, LOUD }

    private String name;

    /** Returns a greeter for name. */
    public static Greeter of(String name) {
        return new Greeter(name);
    }

    public Greeter(String name) {
        this.name = name;
    }

    public String greet() {
        return "Hello, " + name;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
