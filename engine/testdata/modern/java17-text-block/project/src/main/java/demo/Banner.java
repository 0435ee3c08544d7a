package demo;

public class Banner {
    static String banner(String name) {
        String s = "Hello " + name;
        return s;
    }
}
