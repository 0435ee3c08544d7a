package demo;

public class Pairs {
    record Pair(Object left, Object right) {}

    static int sum(Object o) {
        if (o instanceof Pair p) {
            return 0;
        }
        return -1;
    }
}
