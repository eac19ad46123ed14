package io.lockkit.benchmarks;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Counts the watchdog's renewal ticks of a provider: the factory renews every hold that is due in
 * one {@link LockProvider#renew} call, so one call is one tick. The client's wire round trips are
 * sampled around each call (nothing else talks to Redis meanwhile in P5).
 */
final class CountingProvider extends ForwardingLockProvider {

    private final LongSupplier roundTrips;
    private final List<long[]> ticks = new CopyOnWriteArrayList<>();
    private final AtomicLong renewals = new AtomicLong();
    private final AtomicLong maxRenewals = new AtomicLong();
    private final AtomicLong renewNanos = new AtomicLong();

    /** @param roundTrips the client's round trips so far */
    CountingProvider(LockProvider delegate, LongSupplier roundTrips) {
        super(delegate);
        this.roundTrips = roundTrips;
    }

    void reset() {
        ticks.clear();
        renewals.set(0);
        maxRenewals.set(0);
        renewNanos.set(0);
    }

    /** Each tick since the last reset: {renewals, round trips during it, duration in µs}. */
    List<long[]> ticks() {
        return List.copyOf(ticks);
    }

    long renewCalls() {
        return ticks.size();
    }

    long renewals() {
        return renewals.get();
    }

    long maxRenewals() {
        return maxRenewals.get();
    }

    long renewNanos() {
        return renewNanos.get();
    }

    @Override
    public List<Renewal> renew(List<Renewal> list) {
        long t0 = System.nanoTime();
        long r0 = roundTrips.getAsLong();
        try {
            return super.renew(list);
        } finally {
            long nanos = System.nanoTime() - t0;
            ticks.add(new long[] {list.size(), roundTrips.getAsLong() - r0, nanos / 1000});
            renewNanos.addAndGet(nanos);
            renewals.addAndGet(list.size());
            maxRenewals.accumulateAndGet(list.size(), Math::max);
        }
    }
}
