package io.lockkit.quarkus.deployment;

import io.lockkit.cdi.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;

/** An application bean with a {@code @Locked} method, deployed by the tests. */
@ApplicationScoped
public class Counter {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();
    private int count;

    /** Adds one under the lock {@code counter:<name>}, with callers inside counted. */
    @Locked("counter:{name}")
    public int increment(String name) {
        int now = inside.incrementAndGet();
        mostInside.accumulateAndGet(now, Math::max);
        try {
            int read = count;
            Thread.yield();
            count = read + 1;
            return count;
        } finally {
            inside.decrementAndGet();
        }
    }

    /** The most callers that were inside {@link #increment} at once. */
    public int mostInside() {
        return mostInside.get();
    }
}
