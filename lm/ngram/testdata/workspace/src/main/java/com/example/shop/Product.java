package com.example.shop;

import java.util.Objects;

/** A product that can be put in a cart. Prices are in cents. */
public final class Product {
    private final String sku;
    private final String name;
    private final long priceCents;

    public Product(String sku, String name, long priceCents) {
        if (sku == null || sku.isEmpty()) {
            throw new IllegalArgumentException("sku must not be empty");
        }
        if (priceCents < 0) {
            throw new IllegalArgumentException("price must not be negative");
        }
        this.sku = sku;
        this.name = Objects.requireNonNull(name, "name");
        this.priceCents = priceCents;
    }

    public String sku() {
        return sku;
    }

    public String name() {
        return name;
    }

    public long priceCents() {
        return priceCents;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Product)) {
            return false;
        }
        Product other = (Product) o;
        return sku.equals(other.sku);
    }

    @Override
    public int hashCode() {
        return sku.hashCode();
    }

    @Override
    public String toString() {
        return name + " (" + sku + ")";
    }
}
