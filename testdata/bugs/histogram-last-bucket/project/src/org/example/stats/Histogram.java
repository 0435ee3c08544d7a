package org.example.stats;

/** Counts values of [min, max] in equal-width buckets; max itself goes in the last bucket. */
public class Histogram {
    private final double min;
    private final double max;
    private final double width;
    private final int[] buckets;

    public Histogram(double min, double max, int bucketCount) {
        if (!(min < max) || bucketCount < 1) {
            throw new IllegalArgumentException("need min < max and at least one bucket");
        }
        this.min = min;
        this.max = max;
        this.width = (max - min) / bucketCount;
        this.buckets = new int[bucketCount];
    }

    /** Adds a value; values outside [min, max] are rejected. */
    public void add(double value) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(value + " outside [" + min + ", " + max + "]");
        }
        int index = (int) ((value - min) / width);
        if (index > buckets.length) {
            index = buckets.length;
        }
        buckets[index]++;
    }

    public int count(int bucket) {
        return buckets[bucket];
    }

    /** A text bar chart, one line per bucket: lower bound, then one '#' per value. */
    public String render() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < buckets.length; i++) {
            sb.append(String.format("%6.1f | %s%n", min + i * width, "#".repeat(buckets[i])));
        }
        return sb.toString();
    }
}
