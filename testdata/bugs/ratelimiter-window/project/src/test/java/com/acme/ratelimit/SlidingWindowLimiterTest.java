package com.acme.ratelimit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.Test;

import com.google.common.base.Ticker;

public class SlidingWindowLimiterTest {
    /** A clock the test moves by hand. */
    static final class ManualTicker extends Ticker {
        long nanos;

        @Override
        public long read() {
            return nanos;
        }

        void advance(long amount, TimeUnit unit) {
            nanos += unit.toNanos(amount);
        }
    }

    @Test
    public void grantsUpToTheLimitThenRefuses() {
        ManualTicker clock = new ManualTicker();
        SlidingWindowLimiter limiter = new SlidingWindowLimiter(3, Duration.ofSeconds(1), clock);
        assertTrue(limiter.tryAcquire());
        assertTrue(limiter.tryAcquire());
        assertTrue(limiter.tryAcquire());
        assertEquals(0, limiter.available());
        assertFalse(limiter.tryAcquire());
    }

    @Test
    public void windowSlides() {
        ManualTicker clock = new ManualTicker();
        SlidingWindowLimiter limiter = new SlidingWindowLimiter(2, Duration.ofSeconds(1), clock);
        assertTrue(limiter.tryAcquire());
        clock.advance(600, TimeUnit.MILLISECONDS);
        assertTrue(limiter.tryAcquire());
        assertFalse(limiter.tryAcquire());
        clock.advance(400, TimeUnit.MILLISECONDS);
        assertTrue("the first request left the window", limiter.tryAcquire());
        assertFalse(limiter.tryAcquire());
    }

    @Test(expected = IllegalArgumentException.class)
    public void rejectsZeroLimit() {
        new SlidingWindowLimiter(0, Duration.ofSeconds(1));
    }
}
