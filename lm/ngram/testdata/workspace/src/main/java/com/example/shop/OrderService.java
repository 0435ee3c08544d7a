package com.example.shop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Places orders: reserves stock, prices the cart and records the order. */
public class OrderService {
    private final Inventory inventory;
    private final PriceCalculator calculator;
    private final List<Order> orders = new ArrayList<>();
    private final AtomicLong nextId = new AtomicLong(1);

    public OrderService(Inventory inventory, PriceCalculator calculator) {
        this.inventory = inventory;
        this.calculator = calculator;
    }

    public Order place(Cart cart) {
        if (cart.isEmpty()) {
            throw new IllegalStateException("cart is empty");
        }
        if (!inventory.reserve(cart)) {
            throw new IllegalStateException("not enough stock");
        }
        long total = calculator.totalCents(cart);
        Order order = new Order(nextId.getAndIncrement(), cart.products(), total);
        inventory.commit(cart);
        orders.add(order);
        cart.clear();
        return order;
    }

    public List<Order> orders() {
        return new ArrayList<>(orders);
    }

    public long revenueCents() {
        long sum = 0;
        for (Order order : orders) {
            sum += order.totalCents();
        }
        return sum;
    }

    /** An immutable placed order. */
    public record Order(long id, List<Product> products, long totalCents) {
        public Order {
            products = List.copyOf(products);
        }

        public int itemCount() {
            return products.size();
        }
    }
}
