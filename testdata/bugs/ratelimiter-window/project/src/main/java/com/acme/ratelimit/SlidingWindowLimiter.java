package com.acme.ratelimit;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

import com.google.common.base.Ticker;

/**
 * Allows at most {@code maxRequests} requests in any window of {@code window} length.
 * Not thread-safe; wrap calls in a lock when shared.
 */
public class SlidingWindowLimiter {
    private final int maxRequests;
    private final long windowNanos;
    private final Ticker ticker;
    private final Deque<Long> granted = new ArrayDeque<>();

    public SlidingWindowLimiter(int maxRequests, Duration window, Ticker ticker) {
        checkArgument(maxRequests > 0, "maxRequests must be positive: %s", maxRequests);
        checkArgument(!window.isNegative() && !window.isZero(), "window must be positive: %s", window);
        this.maxRequests = maxRequests;
        this.windowNanos = window.toNanos();
        this.ticker = checkNotNull(ticker);
    }

    public SlidingWindowLimiter(int maxRequests, Duration window) {
        this(maxRequests, window, Ticker.systemTicker());
    }

    /** Returns true and records the request if it fits in the current window. */
    public boolean tryAcquire() {
        long now = ticker.read();
        while (!granted.isEmpty() && now - granted.peekFirst() >= windowNanos) {
            granted.pollFirst();
        }
        if (granted.size() > maxRequests) {
            return false;
        }
        granted.addLast(now);
        return true;
    }

    /** Requests that would be granted right now. */
    public int available() {
        long now = ticker.read();
        int inWindow = 0;
        for (long t : granted) {
            if (now - t < windowNanos) {
                inWindow++;
            }
        }
        return maxRequests - inWindow;
    }
}
