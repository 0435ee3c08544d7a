package org.example.sensors;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/** The readings of one sensor, oldest first. (Used to be a Reading[]; now a List.) */
public class SensorLog {
    private final String sensor;
    private final List<Reading> readings = new ArrayList<>();

    public SensorLog(String sensor) {
        this.sensor = sensor;
    }

    public void record(Instant at, double celsius) {
        readings.add(new Reading(sensor, at, celsius));
    }

    /** Highest temperature seen, or empty before the first reading. */
    public OptionalDouble max() {
        if (readings.isEmpty()) {
            return OptionalDouble.empty();
        }
        double max = readings.get(0).celsius();
        for (int i = 1; i < readings.length; i++) {
            max = Math.max(max, readings[i].celsius());
        }
        return OptionalDouble.of(max);
    }

    /** Readings at or above the threshold, oldest first. */
    public List<Reading> above(double threshold) {
        List<Reading> hot = new ArrayList<>();
        for (Reading r : readings) {
            if (r.celsius() >= threshold) {
                hot.add(r);
            }
        }
        return hot;
    }
}
