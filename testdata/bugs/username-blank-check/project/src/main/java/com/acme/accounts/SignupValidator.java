package com.acme.accounts;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.lang3.StringUtils;

/** Checks a sign-up form and returns the messages to show next to the fields. */
public class SignupValidator {
    static final int MIN_PASSWORD_LENGTH = 10;

    public List<String> validate(SignupForm form) {
        List<String> errors = new ArrayList<>();
        if (StringUtils.isEmpty(form.username)) {
            errors.add("username: required");
        } else if (!StringUtils.isAlphanumeric(StringUtils.remove(form.username.trim(), '_'))) {
            errors.add("username: letters, digits and _ only");
        }
        if (StringUtils.isBlank(form.email) || !form.email.contains("@")) {
            errors.add("email: invalid");
        }
        if (StringUtils.length(form.password) < MIN_PASSWORD_LENGTH) {
            errors.add("password: at least " + MIN_PASSWORD_LENGTH + " characters");
        }
        return errors;
    }
}
