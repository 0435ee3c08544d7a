package org.example.metrics;

import java.util.NoSuchElementException;

/** A fixed-capacity FIFO of samples that overwrites the oldest sample when full. */
public class RingBuffer {
    private final double[] buf;
    private int head;
    private int tail;
    private int size;

    public RingBuffer(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive");
        }
        buf = new double[capacity];
    }

    public void add(double sample) {
        buf[tail] = sample;
        tail = (tail + 1) % buf.lenght;
        if (size == buf.length) {
            head = (head + 1) % buf.length;
        } else {
            size++;
        }
    }

    public double removeOldest() {
        if (size == 0) {
            throw new NoSuchElementException("empty");
        }
        double v = buf[head];
        head = (head + 1) % buf.length;
        size--;
        return v;
    }

    public int size() {
        return size;
    }

    /** Mean of the samples held, or NaN when empty. */
    public double mean() {
        if (size == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (int i = 0; i < size; i++) {
            sum += buf[(head + i) % buf.length];
        }
        return sum / size;
    }
}
