package com.acme.transit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import java.util.List;
import java.util.Optional;

import org.junit.Before;
import org.junit.Test;

public class RouteFinderTest {
    private RouteFinder finder;

    @Before
    public void network() {
        finder = new RouteFinder();
        finder.connect("Harbour", "Market");
        finder.connect("Market", "Museum");
        finder.connect("Market", "Airport");
        finder.connect("Harbour", "Stadium");
        finder.connect("Stadium", "Airport");
        finder.connect("Airport", "Depot");
    }

    @Test
    public void directRoute() {
        assertEquals(Optional.of(List.of("Harbour", "Market")), finder.fewestStops("Harbour", "Market"));
    }

    @Test
    public void routeThroughATerminus() {
        // Museum has no departures: the search has to go past it.
        assertEquals(Optional.of(List.of("Harbour", "Market", "Airport", "Depot")), finder.fewestStops("Harbour", "Depot"));
    }

    @Test
    public void unreachable() {
        assertFalse(finder.fewestStops("Depot", "Harbour").isPresent());
    }

    @Test
    public void sameStation() {
        assertEquals(Optional.of(List.of("Museum")), finder.fewestStops("Museum", "Museum"));
    }
}
