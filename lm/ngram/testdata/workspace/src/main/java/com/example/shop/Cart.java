package com.example.shop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A shopping cart: products with quantities, in insertion order. */
public class Cart {
    private final Map<Product, Integer> lines = new LinkedHashMap<>();
    private final List<String> coupons = new ArrayList<>();

    public void add(Product product, int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive: " + quantity);
        }
        lines.merge(product, quantity, Integer::sum);
    }

    public void remove(Product product) {
        lines.remove(product);
    }

    public int quantityOf(Product product) {
        return lines.getOrDefault(product, 0);
    }

    public boolean isEmpty() {
        return lines.isEmpty();
    }

    public int size() {
        int total = 0;
        for (int quantity : lines.values()) {
            total += quantity;
        }
        return total;
    }

    public long subtotalCents() {
        long total = 0;
        for (Map.Entry<Product, Integer> e : lines.entrySet()) {
            total += e.getKey().priceCents() * e.getValue();
        }
        return total;
    }

    public void applyCoupon(String code) {
        if (code == null || code.isBlank()) {
            return;
        }
        String normalized = code.trim().toUpperCase();
        if (!coupons.contains(normalized)) {
            coupons.add(normalized);
        }
    }

    public List<String> coupons() {
        return Collections.unmodifiableList(coupons);
    }

    public List<Product> products() {
        return new ArrayList<>(lines.keySet());
    }

    public void clear() {
        lines.clear();
        coupons.clear();
    }
}
