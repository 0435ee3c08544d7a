package demo;

/** Greeter builds greetings. */
public class Greeter {
    private final String name;

    public Greeter(String name) {
        this.name = name;
    }

    /** Returns a greeting for the name. */
    public String greet() {
        return "Hello, " + name + "!";
    }

    public int countVowels() {
        int n = 0;
        for (int i = 0; i <= name.length(); i++) {
            if ("aeiou".indexOf(name.charAt(i)) >= 0) {
                n++;
            }
        }
        return n;
    }
}
