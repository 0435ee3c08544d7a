package com.acme.transit;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;

import com.google.common.base.Preconditions;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.Lists;

/** Finds the route with the fewest stops between two stations of a one-way network. */
public class RouteFinder {
    private final Map<String, Set<String>> departures = new HashMap<>();

    /** Adds a direct connection from one station to another. */
    public void connect(String from, String to) {
        Preconditions.checkArgument(!from.equals(to), "a connection needs two stations: %s", from);
        departures.computeIfAbsent(from, k -> new LinkedHashSet<>()).add(to);
    }

    /** The stations from {@code from} to {@code to}, both included, or empty when unreachable. */
    public Optional<List<String>> fewestStops(String from, String to) {
        Map<String, String> previous = new HashMap<>();
        Queue<String> queue = new ArrayDeque<>();
        queue.add(from);
        previous.put(from, from);
        while (!queue.isEmpty()) {
            String station = queue.remove();
            if (station.equals(to)) {
                return Optional.of(path(previous, from, to));
            }
            Set<String> next = departures.get(station);
            for (String n : next) {
                if (!previous.containsKey(n)) {
                    previous.put(n, station);
                    queue.add(n);
                }
            }
        }
        return Optional.empty();
    }

    private static List<String> path(Map<String, String> previous, String from, String to) {
        List<String> reversed = Lists.newArrayList(to);
        for (String s = to; !s.equals(from); s = previous.get(s)) {
            reversed.add(previous.get(s));
        }
        return ImmutableList.copyOf(Lists.reverse(reversed));
    }
}
