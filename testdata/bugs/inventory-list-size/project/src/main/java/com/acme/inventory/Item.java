package com.acme.inventory;

import java.util.Objects;

/** A stock-keeping unit held in the warehouse. */
public final class Item {
    private final String sku;
    private final String name;
    private final int quantity;

    public Item(String sku, String name, int quantity) {
        if (quantity < 0) {
            throw new IllegalArgumentException("negative quantity for " + sku);
        }
        this.sku = Objects.requireNonNull(sku, "sku");
        this.name = Objects.requireNonNull(name, "name");
        this.quantity = quantity;
    }

    public String getSku() {
        return sku;
    }

    public String getName() {
        return name;
    }

    public int getQuantity() {
        return quantity;
    }
}
