package org.example.search;

import java.util.Arrays;
import java.util.Random;

/** Checks SortedIds against Arrays.binarySearch; exits with status 1 when a check fails. */
public class SortedIdsTest {
    private static int failures;

    private static void check(String name, boolean ok) {
        System.out.println((ok ? "ok   " : "FAIL ") + name);
        if (!ok) {
            failures++;
        }
    }

    public static void main(String[] args) {
        SortedIds ids = new SortedIds(40, 10, 30, 20);
        check("finds first", ids.indexOf(10) == 0);
        check("finds last", ids.indexOf(40) == 3);
        check("finds middle", ids.contains(20) && ids.contains(30));
        check("absent below", ids.indexOf(5) == -1);
        check("absent between", ids.indexOf(25) == -3);
        check("absent above", ids.indexOf(50) == -5);
        check("single element", new SortedIds(7).contains(7));
        check("empty", new SortedIds().indexOf(7) == -1);

        Random rnd = new Random(42);
        boolean agree = true;
        for (int round = 0; round < 200; round++) {
            long[] values = rnd.longs(rnd.nextInt(20), 0, 50).distinct().sorted().toArray();
            SortedIds s = new SortedIds(values);
            for (long probe = -1; probe <= 51; probe++) {
                agree &= s.indexOf(probe) == Arrays.binarySearch(values, probe);
            }
        }
        check("agrees with Arrays.binarySearch", agree);
        if (failures > 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all checks passed");
    }
}
