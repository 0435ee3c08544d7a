package org.example.text;

import java.util.List;

/** Checks WordFrequency; exits with status 1 when a check fails. */
public class WordFrequencyTest {
    private static int failures;

    private static void check(String name, boolean ok) {
        System.out.println((ok ? "ok   " : "FAIL ") + name);
        if (!ok) {
            failures++;
        }
    }

    public static void main(String[] args) {
        WordFrequency wf = new WordFrequency();
        wf.addText("The cat sat on the mat. The mat was flat!");
        wf.addText("A cat's life: eat, sleep, sit on the mat.");
        check("case-insensitive count", wf.count("THE") == 4);
        check("apostrophes stay in words", wf.count("cat's") == 1 && wf.count("cat") == 1);
        check("absent word", wf.count("dog") == 0);
        check("total", wf.totalWords() == 19);
        check("top three", wf.top(3).equals(List.of("the", "mat", "on")));
        if (failures > 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all checks passed");
    }
}
