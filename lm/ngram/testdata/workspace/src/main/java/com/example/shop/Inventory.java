package com.example.shop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Stock levels per product, with reservations for carts being checked out. */
public class Inventory {
    private final Map<String, Integer> stock = new HashMap<>();
    private final Map<String, Integer> reserved = new HashMap<>();
    private final Map<String, Product> products = new HashMap<>();

    public void restock(Product product, int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive: " + quantity);
        }
        products.put(product.sku(), product);
        stock.merge(product.sku(), quantity, Integer::sum);
    }

    public int available(String sku) {
        int inStock = stock.getOrDefault(sku, 0);
        int held = reserved.getOrDefault(sku, 0);
        return inStock - held;
    }

    public Optional<Product> find(String sku) {
        return Optional.ofNullable(products.get(sku));
    }

    public boolean reserve(Cart cart) {
        for (Product product : cart.products()) {
            if (available(product.sku()) < cart.quantityOf(product)) {
                return false;
            }
        }
        for (Product product : cart.products()) {
            reserved.merge(product.sku(), cart.quantityOf(product), Integer::sum);
        }
        return true;
    }

    public void commit(Cart cart) {
        for (Product product : cart.products()) {
            String sku = product.sku();
            int quantity = cart.quantityOf(product);
            stock.put(sku, stock.get(sku) - quantity);
            reserved.put(sku, reserved.get(sku) - quantity);
        }
    }

    public List<Product> lowStock(int threshold) {
        List<Product> result = new ArrayList<>();
        for (Map.Entry<String, Integer> e : stock.entrySet()) {
            if (e.getValue() < threshold) {
                result.add(products.get(e.getKey()));
            }
        }
        result.sort((a, b) -> a.name().compareTo(b.name()));
        return result;
    }
}
