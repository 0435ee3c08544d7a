package org.example.rooms;

import java.time.LocalTime;

/** Checks Room and Booking; exits with status 1 when a check fails. */
public class RoomTest {
    private static int failures;

    private static void check(String name, boolean ok) {
        System.out.println((ok ? "ok   " : "FAIL ") + name);
        if (!ok) {
            failures++;
        }
    }

    private static LocalTime t(String hhmm) {
        return LocalTime.parse(hhmm);
    }

    public static void main(String[] args) {
        Room room = new Room("Aurora");
        check("first booking", room.book("ana", t("09:00"), t("10:00")).isEmpty());
        check("back-to-back booking", room.book("ben", t("10:00"), t("11:00")).isEmpty());
        check("afternoon booking", room.book("cem", t("14:00"), t("15:30")).isEmpty());
        check("clash inside", room.book("dan", t("09:15"), t("09:45")).map(b -> b.who.equals("ana")).orElse(false));
        check("clash across two", room.book("eve", t("10:30"), t("14:30")).isPresent());
        check("earlier slot is free", room.book("fay", t("08:00"), t("09:00")).isEmpty());
        check("count", room.count() == 4);

        Booking a = new Booking("x", t("12:00"), t("13:00"));
        Booking b = new Booking("y", t("12:59"), t("13:30"));
        check("overlap is symmetric", a.overlaps(b) && b.overlaps(a));
        if (failures > 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all checks passed");
    }
}
