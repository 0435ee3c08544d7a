package com.acme.inventory;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class InventoryTest {
    @Test
    public void summaryCountsItemsAndUnits() {
        Inventory inv = new Inventory();
        inv.receive(new Item("A-100", "Hex bolt M8", 40));
        inv.receive(new Item("B-200", "Washer", 2));
        String summary = inv.summary();
        assertTrue(summary, summary.startsWith("2 items, 42 units\n"));
        assertTrue(summary, summary.contains("A-100   Hex bolt M8    40\n"));
    }

    @Test
    public void emptyInventory() {
        assertEquals("0 items, 0 units\n", new Inventory().summary());
    }
}
