package org.example.stats;

/** Checks Histogram; exits with status 1 when a check fails. */
public class HistogramTest {
    private static int failures;

    private static void check(String name, boolean ok) {
        System.out.println((ok ? "ok   " : "FAIL ") + name);
        if (!ok) {
            failures++;
        }
    }

    public static void main(String[] args) {
        Histogram h = new Histogram(0, 100, 4);
        double[] grades = {0, 12.5, 25, 49.9, 50, 74, 75, 99.5, 100};
        for (double g : grades) {
            h.add(g);
        }
        check("first bucket", h.count(0) == 2);
        check("second bucket", h.count(1) == 2);
        check("third bucket", h.count(2) == 2);
        check("last bucket holds max", h.count(3) == 3);
        boolean rejected = false;
        try {
            h.add(100.5);
        } catch (IllegalArgumentException e) {
            rejected = true;
        }
        check("rejects values above max", rejected);
        check("renders four lines", h.render().split("\n").length == 4);
        if (failures > 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all checks passed");
    }
}
