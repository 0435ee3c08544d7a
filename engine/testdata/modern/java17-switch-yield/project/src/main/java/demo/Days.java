package demo;

public class Days {
    static int letters(String day) {
        int n = 0;
        return n;
    }
}
