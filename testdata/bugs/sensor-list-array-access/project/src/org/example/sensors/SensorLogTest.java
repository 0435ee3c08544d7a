package org.example.sensors;

import java.time.Instant;

/** Checks SensorLog; exits with status 1 when a check fails. */
public class SensorLogTest {
    private static int failures;

    private static void check(String name, boolean ok) {
        System.out.println((ok ? "ok   " : "FAIL ") + name);
        if (!ok) {
            failures++;
        }
    }

    public static void main(String[] args) {
        SensorLog log = new SensorLog("greenhouse-2");
        check("no max before the first reading", log.max().isEmpty());
        Instant t0 = Instant.parse("2024-06-01T06:00:00Z");
        double[] temps = {14.5, 19.0, 27.25, 31.5, 22.0};
        for (int i = 0; i < temps.length; i++) {
            log.record(t0.plusSeconds(3600L * i), temps[i]);
        }
        check("max", log.max().getAsDouble() == 31.5);
        check("above 25", log.above(25).size() == 2);
        check("sensor name kept", log.above(30).get(0).sensor().equals("greenhouse-2"));
        if (failures > 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all checks passed");
    }
}
