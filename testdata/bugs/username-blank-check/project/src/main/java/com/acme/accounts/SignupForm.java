package com.acme.accounts;

/** What the sign-up page posts. Fields may be null when left out of the request. */
public class SignupForm {
    public String username;
    public String email;
    public String password;

    public SignupForm(String username, String email, String password) {
        this.username = username;
        this.email = email;
        this.password = password;
    }
}
