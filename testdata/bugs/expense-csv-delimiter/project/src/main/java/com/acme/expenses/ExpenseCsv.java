package com.acme.expenses;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;

/**
 * Reads expense reports exported as CSV: a header line, then
 * {@code date,category,amount,note} with ISO dates; the note may be empty.
 */
public final class ExpenseCsv {
    private ExpenseCsv() {
    }

    public static List<Expense> parse(String csv) {
        ImmutableList.Builder<Expense> out = ImmutableList.builder();
        List<String> lines = Splitter.onPattern("\r?\n").omitEmptyStrings().splitToList(csv);
        for (String line : lines.subList(1, lines.size())) {
            List<String> f = Splitter.on(';').trimResults().limit(4).splitToList(line);
            if (f.size() < 3) {
                throw new IllegalArgumentException("expected date,category,amount[,note]: " + line);
            }
            String note = f.size() > 3 ? f.get(3) : "";
            out.add(new Expense(LocalDate.parse(f.get(0)), f.get(1), new BigDecimal(f.get(2)), note));
        }
        return out.build();
    }

    /** Sums the amounts per category, categories in alphabetical order. */
    public static Map<String, BigDecimal> totalsByCategory(List<Expense> expenses) {
        Map<String, BigDecimal> totals = new TreeMap<>();
        for (Expense e : expenses) {
            totals.merge(e.category(), e.amount(), BigDecimal::add);
        }
        return totals;
    }
}
