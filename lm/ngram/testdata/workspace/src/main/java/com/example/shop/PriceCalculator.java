package com.example.shop;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Computes the total of a cart: subtotal, coupon discounts, shipping and tax. */
public class PriceCalculator {
    private static final long FREE_SHIPPING_CENTS = 5000;
    private static final long SHIPPING_CENTS = 495;

    private final Map<String, Integer> discountPercent = new HashMap<>();
    private final double taxRate;

    public PriceCalculator(double taxRate) {
        if (taxRate < 0 || taxRate > 1) {
            throw new IllegalArgumentException("tax rate out of range: " + taxRate);
        }
        this.taxRate = taxRate;
    }

    public void registerCoupon(String code, int percent) {
        if (percent <= 0 || percent > 100) {
            throw new IllegalArgumentException("percent out of range: " + percent);
        }
        discountPercent.put(code, percent);
    }

    public long discountCents(Cart cart) {
        long subtotal = cart.subtotalCents();
        int best = 0;
        List<String> codes = cart.coupons();
        for (int i = 0; i < codes.size(); i++) {
            Integer percent = discountPercent.get(codes.get(i));
            if (percent != null && percent > best) {
                best = percent;
            }
        }
        return subtotal * best / 100;
    }

    public long shippingCents(Cart cart) {
        if (cart.isEmpty()) {
            return 0;
        }
        long subtotal = cart.subtotalCents() - discountCents(cart);
        return subtotal >= FREE_SHIPPING_CENTS ? 0 : SHIPPING_CENTS;
    }

    public long taxCents(Cart cart) {
        long taxable = cart.subtotalCents() - discountCents(cart);
        return Math.round(taxable * taxRate);
    }

    public long totalCents(Cart cart) {
        long subtotal = cart.subtotalCents();
        long discount = discountCents(cart);
        long shipping = shippingCents(cart);
        long tax = taxCents(cart);
        return subtotal - discount + shipping + tax;
    }

    public static String format(long cents) {
        long euros = cents / 100;
        long rest = Math.abs(cents % 100);
        StringBuilder sb = new StringBuilder();
        sb.append(euros).append('.');
        if (rest < 10) {
            sb.append('0');
        }
        sb.append(rest);
        return sb.toString();
    }
}
