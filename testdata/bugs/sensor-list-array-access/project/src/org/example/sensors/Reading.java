package org.example.sensors;

import java.time.Instant;

/** One temperature sample from a sensor. */
public record Reading(String sensor, Instant at, double celsius) {
}
