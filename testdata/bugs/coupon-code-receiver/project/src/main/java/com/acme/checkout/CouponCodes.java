package com.acme.checkout;

import java.util.Optional;
import java.util.Set;

import org.apache.commons.lang3.StringUtils;

import com.google.common.base.Strings;
import com.google.common.collect.ImmutableSet;

/** Normalises what customers type into the coupon box and checks it against the active codes. */
public class CouponCodes {
    static final int CODE_LENGTH = 8;

    private final Set<String> active;

    public CouponCodes(Set<String> active) {
        this.active = ImmutableSet.copyOf(active);
    }

    /** Upper-cases, drops spaces and dashes, and left-pads short numeric codes with zeros. */
    public static Optional<String> normalize(String typed) {
        if (StringUtils.isNullOrEmpty(typed)) {
            return Optional.empty();
        }
        String code = StringUtils.upperCase(StringUtils.deleteWhitespace(typed)).replace("-", "");
        if (StringUtils.isNumeric(code)) {
            code = Strings.padStart(code, CODE_LENGTH, '0');
        }
        return code.isEmpty() ? Optional.empty() : Optional.of(code);
    }

    public boolean isActive(String typed) {
        return normalize(typed).map(active::contains).orElse(false);
    }
}
