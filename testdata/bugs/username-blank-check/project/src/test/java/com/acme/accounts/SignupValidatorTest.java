package com.acme.accounts;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.junit.Test;

public class SignupValidatorTest {
    private final SignupValidator validator = new SignupValidator();

    @Test
    public void acceptsAGoodForm() {
        assertTrue(validator.validate(new SignupForm("ada_l", "ada@example.org", "correct horse")).isEmpty());
    }

    @Test
    public void missingUsername() {
        List<String> errors = validator.validate(new SignupForm(null, "ada@example.org", "correct horse"));
        assertEquals(List.of("username: required"), errors);
    }

    @Test
    public void whitespaceUsernameIsMissing() {
        List<String> errors = validator.validate(new SignupForm("   ", "ada@example.org", "correct horse"));
        assertEquals(List.of("username: required"), errors);
    }

    @Test
    public void badCharactersAndShortPassword() {
        List<String> errors = validator.validate(new SignupForm("ada!", "ada-at-example", "short"));
        assertEquals(3, errors.size());
    }
}
