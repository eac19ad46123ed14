package io.lockkit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Ticker} that moves only when the test says so. */
final class FakeTicker implements Ticker {

    // Not zero, so arithmetic that mistakes "0" for "unset" would show.
    private final AtomicLong nanos = new AtomicLong(TimeUnit.HOURS.toNanos(1));

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }
}
