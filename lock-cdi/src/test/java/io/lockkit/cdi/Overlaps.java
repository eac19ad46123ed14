package io.lockkit.cdi;

import java.util.concurrent.atomic.AtomicInteger;

/** Counts how many callers are inside a critical section at once, and the most ever seen. */
final class Overlaps {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger most = new AtomicInteger();
    private final AtomicInteger entries = new AtomicInteger();

    void enter() {
        int now = inside.incrementAndGet();
        most.accumulateAndGet(now, Math::max);
        entries.incrementAndGet();
    }

    void exit() {
        inside.decrementAndGet();
    }

    int most() {
        return most.get();
    }

    int entries() {
        return entries.get();
    }
}
