package org.example.print;

import java.util.Optional;

/** An inclusive range of page numbers, as typed in a print dialog ("3-7"). */
public final class PageRange {
    final int first;
    final int last;

    public PageRange(int first, int last) {
        if (first < 1 || last < first) {
            throw new IllegalArgumentException("bad page range " + first + "-" + last);
        }
        this.first = first;
        this.last = last;
    }

    public static PageRange parse(String text) {
        String[] parts = text.trim().split("\\s*-\\s*", 2);
        int first = Integer.parseInt(parts[0]);
        int last = parts.length == 2 ? Integer.parseInt(parts[1]) : first;
        return new PageRange(first, last);
    }

    public int pages() {
        return last - first + 1;
    }

    /** The pages in both ranges, or empty when they are disjoint. */
    public Optional<PageRange> intersect(PageRange other) {
        int lo = Math.max(first, other.first);
        int hi = Math.min(last, other.first);
        return lo <= hi ? Optional.of(new PageRange(lo, hi)) : Optional.empty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PageRange r && r.first == first && r.last == last;
    }

    @Override
    public int hashCode() {
        return 31 * first + last;
    }

    @Override
    public String toString() {
        return first == last ? Integer.toString(first) : first + "-" + last;
    }
}
