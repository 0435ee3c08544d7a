package com.example.shop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Products a customer wants to buy later, with the price seen when added. */
public class Wishlist {
    private final Map<String, Long> pricesSeen = new HashMap<>();
    private final List<Product> products = new ArrayList<>();

    public void add(Product product) {
        if (product == null) {
            throw new IllegalArgumentException("product must not be null");
        }
        if (!products.contains(product)) {
            products.add(product);
            pricesSeen.put(product.sku(), product.priceCents());
        }
    }

    public void remove(Product product) {
        products.remove(product);
        pricesSeen.remove(product.sku());
    }

    public boolean isEmpty() {
        return products.isEmpty();
    }

    public int size() {
        return products.size();
    }

    public List<Product> cheaperThanSeen(Inventory inventory) {
        List<Product> result = new ArrayList<>();
        for (Product product : products) {
            Long seen = pricesSeen.get(product.sku());
            if (seen != null && product.priceCents() < seen) {
                result.add(product);
            }
        }
        return result;
    }

    public Cart toCart() {
        Cart cart = new Cart();
        for (int i = 0; i < products.size(); i++) {
            cart.add(products.get(i), 1);
        }
        return cart;
    }
}
