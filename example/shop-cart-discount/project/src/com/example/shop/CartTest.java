package com.example.shop;

/** Checks Cart; exits with status 1 when a check fails. */
public class CartTest {
    private static int failures;

    private static void check(String name, boolean ok) {
        System.out.println((ok ? "ok   " : "FAIL ") + name);
        if (!ok) {
            failures++;
        }
    }

    public static void main(String[] args) {
        Product tea = new Product("Green tea", 450);
        Product mug = new Product("Mug", 1200);
        Cart cart = new Cart();
        cart.add(tea, 2);
        cart.add(mug, 1);
        cart.add(tea, 1);
        check("subtotal", cart.subtotalCents() == 2550);
        check("no discount", cart.totalCents() == 2550);
        cart.apply(new Discount("SPRING10", 10));
        check("10% off", cart.totalCents() == 2295);
        cart.apply(new Discount("HALF", 50));
        check("50% off", cart.totalCents() == 1275);
        String receipt = Receipt.format(cart);
        check("receipt", receipt.contains("HALF     -50%") && receipt.contains("Total       12.75"));
        if (failures > 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all checks passed");
    }
}
