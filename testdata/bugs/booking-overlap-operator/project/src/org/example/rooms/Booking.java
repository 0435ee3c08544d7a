package org.example.rooms;

import java.time.LocalTime;

/** A half-open time slot [start, end) booked by someone. */
public final class Booking {
    final String who;
    final LocalTime start;
    final LocalTime end;

    public Booking(String who, LocalTime start, LocalTime end) {
        if (!start.isBefore(end)) {
            throw new IllegalArgumentException("a booking must end after it starts");
        }
        this.who = who;
        this.start = start;
        this.end = end;
    }

    /** True when the two slots share at least one instant. Touching slots do not overlap. */
    public boolean overlaps(Booking other) {
        return start.isBefore(other.end) || other.start.isBefore(end);
    }

    @Override
    public String toString() {
        return who + " " + start + "-" + end;
    }
}
