package com.example.shop;

/** A discount code that takes a percentage off the subtotal. */
public record Discount(String code, int percentOff) {
    public static final Discount NONE = new Discount("", 0);

    public Discount {
        if (percentOff < 0 || percentOff > 100) {
            throw new IllegalArgumentException("percentOff must be 0..100: " + percentOff);
        }
    }
}
