package demo;

import java.util.function.IntUnaryOperator;

/** Situation fixture: simple names that are declarations, labels, lambda parameters, or new. */
class SitSimple {
    int run(int k, String s) {
        outer: for (int i = 0; i < k; i++) { if (i > 2) break /*^*/outer; }
        IntUnaryOperator op = /*^*/x -> x + 1;
        Runnable r = /*^*/() -> { };
        int j = switch (k) { case 1 -> { int z = 2; yield /*^*/z; } default -> /*^*/k; };
        record P(int a) { }
        P p = new /*^*/P(/*^*/k);
        /*^*/label: { r.run(); }
        return j + p./*^*/a() + /*^*/op.applyAsInt(/*^*/k) + /*^*/s.length();
    }

    <T extends Comparable<T>> T max(T a, T b) {
        /*^*/T[] arr = null;
        return arr == null && /*^*/a.compareTo(/*^*/b) > 0 ? /*^*/a : b;
    }
}
