package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Forwards to a provider and counts what the lockkit core asks of it: acquisition attempts,
 * releases, abandoned waits, renewal calls and the holds they renew (in all and per lock name),
 * inspections, listing pages, forced releases, and the subscriptions the core holds open. A test
 * wraps its provider in one to check costs the caller cannot see, such as "the watchdog renews 100
 * holds in one call" or "a released lock is no longer renewed":
 *
 * <pre>{@code
 * CountingLockProvider counting = new CountingLockProvider(provider);
 * DistributedLockFactory locks = DistributedLockFactory.builder(counting).build();
 * ...
 * assertThat(counting.renewCalls()).isEqualTo(1);
 * }</pre>
 *
 * <p>A call is counted when it is made, whether it then succeeds or throws. Thread-safe.
 */
public final class CountingLockProvider extends ForwardingLockProvider {

    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder releases = new LongAdder();
    private final LongAdder abandons = new LongAdder();
    private final LongAdder renewCalls = new LongAdder();
    private final LongAdder renewedHolds = new LongAdder();
    private final ConcurrentHashMap<String, LongAdder> renewalsByName = new ConcurrentHashMap<>();
    private final LongAdder inspections = new LongAdder();
    private final LongAdder listPages = new LongAdder();
    private final LongAdder forcedReleases = new LongAdder();
    private final AtomicInteger openSubscriptions = new AtomicInteger();

    /** Counts the calls made to {@code delegate}, which it forwards them to. */
    public CountingLockProvider(LockProvider delegate) {
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
    public void abandon(String name, String owner, long waitId) {
        abandons.increment();
        super.abandon(name, owner, waitId);
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        renewCalls.increment();
        renewedHolds.add(renewals.size());
        for (Renewal r : renewals) {
            renewalsByName.computeIfAbsent(r.name(), n -> new LongAdder()).increment();
        }
        return super.renew(renewals);
    }

    @Override
    public Optional<LockState> inspect(String name) {
        inspections.increment();
        return super.inspect(name);
    }

    @Override
    public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
        listPages.increment();
        return super.list(prefix, cursor, pageSize);
    }

    @Override
    public boolean forceRelease(String name) {
        forcedReleases.increment();
        return super.forceRelease(name);
    }

    @Override
    public Subscription subscribe(String name, WakeUpListener listener) {
        Subscription subscription = super.subscribe(name, listener);
        openSubscriptions.incrementAndGet();
        AtomicInteger closes = new AtomicInteger();
        return () -> {
            if (closes.getAndIncrement() == 0) {
                openSubscriptions.decrementAndGet();
            }
            subscription.close();
        };
    }

    /** Calls of {@link #tryAcquire}: first attempts, retries and claims of a hand-over alike. */
    public long acquisitions() {
        return acquisitions.sum();
    }

    /** Calls of {@link #release}. */
    public long releases() {
        return releases.sum();
    }

    /** Calls of {@link #abandon}: waits that ended without the lock. */
    public long abandons() {
        return abandons.sum();
    }

    /** Calls of {@link #renew}: one per watchdog batch. */
    public long renewCalls() {
        return renewCalls.sum();
    }

    /** Holds renewed over all {@link #renew} calls. */
    public long renewedHolds() {
        return renewedHolds.sum();
    }

    /** How often a hold of lock {@code name} was asked to be renewed. */
    public long renewalsOf(String name) {
        LongAdder n = renewalsByName.get(name);
        return n == null ? 0 : n.sum();
    }

    /** Calls of {@link #inspect}. */
    public long inspections() {
        return inspections.sum();
    }

    /** Calls of {@link #list}: one per page. */
    public long listPages() {
        return listPages.sum();
    }

    /** Calls of {@link #forceRelease}. */
    public long forcedReleases() {
        return forcedReleases.sum();
    }

    /** Subscriptions the core opened and has not closed yet. */
    public int openSubscriptions() {
        return openSubscriptions.get();
    }
}
