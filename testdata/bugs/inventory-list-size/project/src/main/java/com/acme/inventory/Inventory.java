package com.acme.inventory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.commons.lang3.StringUtils;

/** The items on hand, in the order they were received. */
public class Inventory {
    private final List<Item> items = new ArrayList<>();

    public void receive(Item item) {
        items.add(item);
    }

    public List<Item> items() {
        return Collections.unmodifiableList(items);
    }

    public int totalUnits() {
        int total = 0;
        for (Item item : items) {
            total += item.getQuantity();
        }
        return total;
    }

    /** A printable stock report: a header line, then one padded line per item. */
    public String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append(items.length()).append(" items, ").append(totalUnits()).append(" units\n");
        for (Item item : items) {
            sb.append(StringUtils.rightPad(item.getSku(), 8))
                    .append(StringUtils.abbreviate(item.getName(), 20))
                    .append(StringUtils.leftPad(Integer.toString(item.getQuantity()), 6))
                    .append('\n');
        }
        return sb.toString();
    }
}
