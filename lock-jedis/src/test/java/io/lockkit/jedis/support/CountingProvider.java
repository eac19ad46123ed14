package io.lockkit.jedis.support;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.ForwardingLockProvider;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what the core asks of a provider: renewal calls and renewed holds (the watchdog's work,
 * which has no public accessor), acquisitions, releases and open subscriptions. Thread-safe.
 */
public final class CountingProvider extends ForwardingLockProvider {

    private final LongAdder renewCalls = new LongAdder();
    private final LongAdder renewedHolds = new LongAdder();
    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder releases = new LongAdder();
    private final AtomicInteger openSubscriptions = new AtomicInteger();

    public CountingProvider(LockProvider delegate) {
        super(delegate);
    }

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        acquisitions.increment();
        return super.tryAcquire(request);
    }

    @Override
    public Release release(String name, String owner) {
        releases.increment();
        return super.release(name, owner);
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        renewCalls.increment();
        renewedHolds.add(renewals.size());
        return super.renew(renewals);
    }

    @Override
    public Subscription subscribe(String name, WakeUpListener listener) {
        Subscription s = super.subscribe(name, listener);
        openSubscriptions.incrementAndGet();
        AtomicInteger closed = new AtomicInteger();
        return () -> {
            if (closed.getAndIncrement() == 0) {
                openSubscriptions.decrementAndGet();
            }
            s.close();
        };
    }

    public long renewCalls() {
        return renewCalls.sum();
    }

    public long renewedHolds() {
        return renewedHolds.sum();
    }

    public long acquisitions() {
        return acquisitions.sum();
    }

    public long releases() {
        return releases.sum();
    }

    /** Subscriptions the core opened and has not closed yet. */
    public int openSubscriptions() {
        return openSubscriptions.get();
    }
}
