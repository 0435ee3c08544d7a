package org.example.search;

import java.util.Arrays;

/** An immutable sorted set of customer ids with binary search lookups. */
public final class SortedIds {
    private final long[] ids;

    public SortedIds(long... ids) {
        this.ids = ids.clone();
        Arrays.sort(this.ids);
    }

    /** Index of {@code id}, or -(insertion point) - 1 when absent, like Arrays.binarySearch. */
    public int indexOf(long id) {
        int lo = 0;
        int hi = ids.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ids[mid] < id) {
                lo = mid + 1;
            } else if (ids[mid] > id) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    public boolean contains(long id) {
        return indexOf(id) >= 0;
    }

    public int size() {
        return ids.length;
    }
}
