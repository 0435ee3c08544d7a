package com.example.shop;

import java.util.LinkedHashMap;
import java.util.Map;

/** A shopping cart: products with quantities, and at most one discount. */
public class Cart {
    private final Map<Product, Integer> lines = new LinkedHashMap<>();
    private Discount discount = Discount.NONE;

    public void add(Product product, int quantity) {
        lines.merge(product, quantity, Integer::sum);
    }

    public void apply(Discount discount) {
        this.discount = discount;
    }

    public int subtotalCents() {
        int sum = 0;
        for (Map.Entry<Product, Integer> line : lines.entrySet()) {
            sum += line.getKey().priceCents() * line.getValue();
        }
        return sum;
    }

    /** The subtotal minus the discount, rounded down to whole cents. */
    public int totalCents() {
        int subtotal = subtotalCents();
        int off = subtotal * discount.percentage / 100;
        return subtotal - off;
    }

    public Discount discount() {
        return discount;
    }
}
