package org.example.print;

import java.util.Optional;

/** Checks PageRange and PrintJob; exits with status 1 when a check fails. */
public class PrintJobTest {
    private static int failures;

    private static void check(String name, boolean ok) {
        System.out.println((ok ? "ok   " : "FAIL ") + name);
        if (!ok) {
            failures++;
        }
    }

    public static void main(String[] args) {
        check("parse range", PageRange.parse(" 3 - 7 ").equals(new PageRange(3, 7)));
        check("parse single page", PageRange.parse("4").pages() == 1);
        check("inside the document", new PrintJob(20, "3-7").pagesToPrint().equals(Optional.of(new PageRange(3, 7))));
        check("clipped at the end", new PrintJob(10, "8-15").pagesToPrint().equals(Optional.of(new PageRange(8, 10))));
        check("past the end", new PrintJob(10, "11-12").pagesToPrint().isEmpty());
        check("duplex sheets", new PrintJob(10, "2-6").sheets(true) == 3);
        check("intersect is symmetric", new PageRange(2, 9).intersect(new PageRange(5, 12)).equals(new PageRange(5, 12).intersect(new PageRange(2, 9))));
        if (failures > 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all checks passed");
    }
}
