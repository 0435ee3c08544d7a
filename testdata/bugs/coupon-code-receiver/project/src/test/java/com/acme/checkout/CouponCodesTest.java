package com.acme.checkout;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Optional;
import java.util.Set;

import org.junit.Test;

public class CouponCodesTest {
    @Test
    public void normalizes() {
        assertEquals(Optional.of("SPRING24"), CouponCodes.normalize(" spring-24 "));
        assertEquals(Optional.of("00004711"), CouponCodes.normalize("4711"));
        assertEquals(Optional.empty(), CouponCodes.normalize(""));
        assertEquals(Optional.empty(), CouponCodes.normalize(null));
        assertEquals(Optional.empty(), CouponCodes.normalize(" - "));
    }

    @Test
    public void activeCodes() {
        CouponCodes codes = new CouponCodes(Set.of("SPRING24", "00004711"));
        assertTrue(codes.isActive("Spring 24"));
        assertTrue(codes.isActive("47-11"));
        assertFalse(codes.isActive("WINTER23"));
        assertFalse(codes.isActive(null));
    }
}
