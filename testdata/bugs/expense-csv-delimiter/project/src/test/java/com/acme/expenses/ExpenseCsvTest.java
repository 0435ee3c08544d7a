package com.acme.expenses;

import static org.junit.Assert.assertEquals;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import org.junit.Test;

public class ExpenseCsvTest {
    private static final String REPORT = "date,category,amount,note\n"
            + "2024-03-01, travel, 120.50, train to Lyon\n"
            + "2024-03-02,meals,18.20,\n"
            + "2024-03-02,travel,9.80,metro, two tickets\n";

    @Test
    public void parsesEveryLine() {
        List<Expense> expenses = ExpenseCsv.parse(REPORT);
        assertEquals(3, expenses.size());
        assertEquals(new Expense(LocalDate.of(2024, 3, 1), "travel", new BigDecimal("120.50"), "train to Lyon"), expenses.get(0));
        assertEquals("", expenses.get(1).note());
        assertEquals("metro, two tickets", expenses.get(2).note());
    }

    @Test
    public void totals() {
        Map<String, BigDecimal> totals = ExpenseCsv.totalsByCategory(ExpenseCsv.parse(REPORT));
        assertEquals(Map.of("meals", new BigDecimal("18.20"), "travel", new BigDecimal("130.30")), totals);
    }

    @Test(expected = IllegalArgumentException.class)
    public void shortLine() {
        ExpenseCsv.parse("date,category,amount,note\n2024-03-01,travel\n");
    }
}
