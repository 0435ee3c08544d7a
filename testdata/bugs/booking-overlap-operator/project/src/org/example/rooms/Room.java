package org.example.rooms;

import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A meeting room's bookings for one day. */
public class Room {
    private final String name;
    private final List<Booking> bookings = new ArrayList<>();

    public Room(String name) {
        this.name = name;
    }

    /** Books the slot unless it clashes; returns the clashing booking otherwise. */
    public Optional<Booking> book(String who, LocalTime start, LocalTime end) {
        Booking wanted = new Booking(who, start, end);
        for (Booking b : bookings) {
            if (b.overlaps(wanted)) {
                return Optional.of(b);
            }
        }
        bookings.add(wanted);
        return Optional.empty();
    }

    public int count() {
        return bookings.size();
    }

    public String name() {
        return name;
    }
}
