package io.lockkit;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * The open {@link Leadership}s of one {@link ProviderLockFactory}, one per name: made, closed with
 * the factory (before its holds go), and listed for health reports; makes each one's thread.
 * Thread-safe.
 */
final class Leaderships {

    private final ConcurrentHashMap<String, LockLeadership> open = new ConcurrentHashMap<>();
    /** The caller's thread factory, for the leaderships' threads; null: daemon threads of our own. */
    private final @Nullable ThreadFactory threadFactory;

    private final LeadershipServices services;

    Leaderships(@Nullable ThreadFactory threadFactory, LeadershipServices services) {
        this.threadFactory = threadFactory;
        this.services = services;
    }

    /**
     * A new leadership of {@code name} (see {@link DistributedLockFactory#leadership}).
     *
     * @throws IllegalArgumentException for a bad name or options
     * @throws IllegalStateException when one is open already
     */
    LockLeadership open(String name, LeadershipOptions options) {
        LockNames.check(name);
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        services.calls()
                .require(
                        io.lockkit.spi.LockProvider.Capability.FENCING_TOKENS,
                        "leadership (its terms are fencing tokens)");
        LeadershipOptions.Resolved resolved = options.resolve(services.defaults());
        services.gate().ensureOpen(name);
        LockLeadership l = new LockLeadership(services, this, name, resolved);
        if (open.putIfAbsent(name, l) != null) {
            throw new IllegalStateException("a leadership of '" + LockException.abbreviate(name)
                    + "' is already open on this factory; close it first");
        }
        if (services.gate().isClosed()) {
            open.remove(name, l);
            throw new LockException(name, "the lock factory is closed");
        }
        return l;
    }

    /** Forgets {@code l}, which was closed. */
    void closed(LockLeadership l) {
        open.remove(l.name(), l);
    }

    /** Closes every open leadership: each leader's onRevoked runs, then its lock is released. */
    void closeAll() {
        for (LockLeadership l : open.values()) {
            l.close();
        }
    }

    /** Every open leadership's name, and whether this instance leads it now. */
    Map<String, Boolean> leading() {
        Map<String, Boolean> m = new TreeMap<>();
        open.forEach((n, l) -> m.put(n, l.leads()));
        return m;
    }

    /** A leadership's thread: from the caller's thread factory if one was given (and it made one), else a daemon thread. */
    Thread newThread(Runnable body, String threadName) {
        Thread t = threadFactory != null ? threadFactory.newThread(body) : null;
        if (t == null) {
            t = new Thread(body, threadName);
            t.setDaemon(true);
        }
        return t;
    }
}
