package com.example.shop;

/** Something the shop sells. Prices are in cents to avoid rounding surprises. */
public record Product(String name, int priceCents) {
}
