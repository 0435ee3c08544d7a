package org.example.metrics;

/** Checks RingBuffer; exits with status 1 when a check fails. */
public class RingBufferTest {
    private static int failures;

    private static void check(String name, boolean ok) {
        System.out.println((ok ? "ok   " : "FAIL ") + name);
        if (!ok) {
            failures++;
        }
    }

    public static void main(String[] args) {
        RingBuffer rb = new RingBuffer(3);
        check("empty mean is NaN", Double.isNaN(rb.mean()));
        rb.add(1);
        rb.add(2);
        check("size after two adds", rb.size() == 2);
        check("mean of 1 and 2", rb.mean() == 1.5);
        rb.add(3);
        rb.add(4);
        check("full buffer keeps capacity", rb.size() == 3);
        check("oldest sample overwritten", rb.removeOldest() == 2.0);
        check("mean of 3 and 4", rb.mean() == 3.5);
        rb.add(5);
        rb.add(6);
        check("wraps around twice", rb.removeOldest() == 4.0 && rb.removeOldest() == 5.0 && rb.removeOldest() == 6.0);
        if (failures > 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all checks passed");
    }
}
