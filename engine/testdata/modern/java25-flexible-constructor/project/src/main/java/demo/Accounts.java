package demo;

public class Accounts {
    static class Account {
        final int balance;
        Account(int balance) { this.balance = balance; }
    }

    static class Savings extends Account {
        Savings(int balance) {
            super(balance);
        }
    }
}
