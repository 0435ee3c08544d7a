package com.example.shop;

/** Formats what the customer sees at checkout. */
public final class Receipt {
    private Receipt() {
    }

    public static String format(Cart cart) {
        Discount discount = cart.discount();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("Subtotal %8s%n", euros(cart.subtotalCents())));
        if (discount.percentOff() > 0) {
            sb.append(String.format("%-8s -%d%%%n", discount.code(), discount.percentOff()));
        }
        sb.append(String.format("Total    %8s%n", euros(cart.totalCents())));
        return sb.toString();
    }

    static String euros(int cents) {
        return String.format("%d.%02d", cents / 100, cents % 100);
    }
}
