package com.acme.expenses;

import java.math.BigDecimal;
import java.time.LocalDate;

/** One line of an expense report. */
public record Expense(LocalDate date, String category, BigDecimal amount, String note) {
}
