package io.lockkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.WakeUpListeners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * An in-JVM lock backend with every guarantee of a distributed one (leases that lapse, fencing
 * tokens, loss reporting), for application tests and single-process use. It is never a stand-in
 * for a distributed lock: it excludes only threads of this JVM.
 *
 * <p>{@link #newClient()} gives further providers over the same lock table, each playing a
 * separate process; {@link #stopBackend()} and {@link #startBackend()} simulate an outage and a
 * restart that forgets every hold. It has every {@linkplain LockProvider.Capability capability}:
 * shared claims (read/write locks, semaphores) and fair ones are admitted by the rule
 * {@link io.lockkit.spi.Claim} states. It has none of the optional direct hand-over: a release
 * frees the lock and wakes one waiter per client. After {@link #close()}, every call of this
 * client but {@code close()} and {@code capabilities()} throws {@link LockException}.
 * Thread-safe.
 *
 * <p>Design: one table of names ({@link LocalName}: holders with their claims, counts, tokens and
 * lease deadlines; a stored capacity; the queue of waits that may block others) under one lock,
 * sorted by name so that {@link #list} pages by name (the cursor is the last name listed); leases
 * and queue entries lapse lazily when a name is next looked at. {@link LockState#waiters()} is -1:
 * only waits that may block others are queued. Tokens come from one counter shared by all names,
 * so they increase per name across expiry and restarts and cost no memory per name.
 */
public final class LocalLockProvider implements LockProvider {

    private static final Set<Capability> CAPABILITIES = Set.of(Capability.values());

    private final Table table;
    private final WakeUpListeners listeners = new WakeUpListeners();
    private volatile boolean closed;

    /** A provider over a new lock table, with the system clock. */
    public LocalLockProvider() {
        this(Ticker.system());
    }

    /** A provider over a new lock table whose leases run on {@code ticker}. */
    public LocalLockProvider(Ticker ticker) {
        if (ticker == null) {
            throw new IllegalArgumentException("ticker must not be null");
        }
        this.table = new Table(ticker);
        table.clients.add(this);
    }

    private LocalLockProvider(Table table) {
        this.table = table;
        table.clients.add(this);
    }

    /** Another client over the same lock table, as a second process would be. */
    public LocalLockProvider newClient() {
        return new LocalLockProvider(table);
    }

    /** Makes the table unreachable: every call of every client fails until {@link #startBackend()}. */
    public void stopBackend() {
        table.lock.lock();
        try {
            table.down = true;
        } finally {
            table.lock.unlock();
        }
    }

    /**
     * Makes the next fencing token of this lock table at least {@code next}, for tests of tokens past
     * 2^31 or 2^53, which no test reaches by acquiring; the table has one counter for every name and
     * client, and a counter already past {@code next - 1} stays where it is. Thread-safe.
     *
     * @throws IllegalArgumentException when {@code next} is less than 1
     */
    public void startTokensAt(long next) {
        if (next < 1) {
            throw new IllegalArgumentException("next must be at least 1, was " + next);
        }
        table.lock.lock();
        try {
            table.lastToken = Math.max(table.lastToken, next - 1);
        } finally {
            table.lock.unlock();
        }
    }

    /** Ends an outage as a restart without persistence would: every hold is forgotten. */
    public void startBackend() {
        table.lock.lock();
        try {
            table.down = false;
            table.entries.clear();
        } finally {
            table.lock.unlock();
        }
    }

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        String name = request.name();
        table.lock.lock();
        try {
            LocalName n = table.live(name, this);
            long now = table.ticker.nanoTime();
            if (n == null) {
                n = new LocalName();
                table.entries.put(name, n);
            }
            try {
                LocalName.Holder h = n.attempt(request, now, () -> table.nextToken(name));
                if (h != null) {
                    return Acquisition.acquired(h.token);
                }
                return Acquisition.busy(Duration.ofNanos(n.retryAfter(now)));
            } finally {
                table.dropIfUnused(name, n);
            }
        } finally {
            table.lock.unlock();
        }
    }

    @Override
    public Release release(String name, String owner) {
        table.lock.lock();
        try {
            LocalName n = table.live(name, this);
            Boolean ended = n == null ? null : n.release(owner);
            if (n == null || ended == null) {
                return Release.NOT_HELD;
            }
            if (!ended) {
                return Release.STILL_HELD;
            }
            table.dropIfUnused(name, n);
        } finally {
            table.lock.unlock();
        }
        table.notifyReleased(name);
        return Release.RELEASED;
    }

    /**
     * Drops the owner's queue entry, so that a waiter that gave up blocks no claim behind it, and
     * wakes the waiters it held back (readers behind a writer, a fair queue's next).
     */
    @Override
    public void abandon(String name, String owner, long waitId) {
        boolean left = false;
        table.lock.lock();
        try {
            LocalName n = table.live(name, this);
            if (n != null) {
                left = n.abandon(owner);
                table.dropIfUnused(name, n);
            }
        } finally {
            table.lock.unlock();
        }
        if (left) {
            table.notifyReleased(name);
        }
    }

    /**
     * Stores {@code capacity} with {@code name}: holders over it keep their permits, and waiters
     * are woken to try against it.
     */
    @Override
    public void setCapacity(String name, int capacity) {
        table.lock.lock();
        try {
            LocalName n = table.live(name, this);
            if (n == null) {
                n = new LocalName();
                table.entries.put(name, n);
            }
            n.capacity(capacity);
        } finally {
            table.lock.unlock();
        }
        table.notifyReleased(name);
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        checkOpen(renewals.isEmpty() ? null : renewals.get(0).name());
        List<Renewal> gone = new ArrayList<>();
        table.lock.lock();
        try {
            long now = table.ticker.nanoTime();
            for (Renewal r : renewals) {
                LocalName n = table.live(r.name(), this);
                LocalName.Holder h = n == null ? null : n.holders.get(r.owner());
                if (h == null) {
                    gone.add(r);
                } else {
                    h.deadline = now + r.lease().toNanos();
                }
            }
        } finally {
            table.lock.unlock();
        }
        return gone;
    }

    @Override
    public boolean forceRelease(String name) {
        boolean held = false;
        table.lock.lock();
        try {
            LocalName n = table.live(name, this);
            if (n != null) {
                held = n.forceRelease();
                table.dropIfUnused(name, n);
            }
        } finally {
            table.lock.unlock();
        }
        if (held) {
            table.notifyReleased(name);
        }
        return held;
    }

    @Override
    public Optional<LockState> inspect(String name) {
        table.lock.lock();
        try {
            LocalName n = table.live(name, this);
            if (n == null || n.holders.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(n.state(table.ticker.nanoTime()));
        } finally {
            table.lock.unlock();
        }
    }

    /**
     * Lists by name order: a page is the next {@code pageSize} entries after the cursor (the last
     * name of the previous page) in the table's sorted map, lapsed ones dropped.
     */
    @Override
    public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
        ListPage.checkArguments(prefix, pageSize);
        List<HeldLock> page = new ArrayList<>(Math.min(pageSize, 64));
        table.lock.lock();
        try {
            table.check(prefix, this);
            long now = table.ticker.nanoTime();
            String last = cursor;
            int examined = 0;
            var from = cursor == null ? table.entries.tailMap(prefix, true) : table.entries.tailMap(cursor, false);
            for (Map.Entry<String, LocalName> en : from.entrySet()) {
                if (!en.getKey().startsWith(prefix)) {
                    break;
                }
                if (examined++ == pageSize) {
                    return new ListPage(page, last);
                }
                last = en.getKey();
                en.getValue().prune(now);
                if (!en.getValue().holders.isEmpty()) {
                    page.add(new HeldLock(en.getKey(), en.getValue().state(now)));
                }
            }
            return new ListPage(page, null);
        } finally {
            table.lock.unlock();
        }
    }

    @Override
    public Subscription subscribe(String name, WakeUpListener listener) {
        checkOpen(name);
        listeners.add(name, listener);
        return () -> listeners.remove(name, listener);
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public void close() {
        closed = true;
        table.clients.remove(this);
        listeners.clear();
    }

    /** Number of names this client is subscribed to (for this package's tests of subscription hygiene). */
    int subscriptions() {
        return listeners.size();
    }

    @Override
    public String toString() {
        return "LocalLockProvider";
    }

    private void checkOpen(@Nullable String name) {
        if (closed) {
            throw new LockException(name, "this LocalLockProvider is closed");
        }
    }

    private static final class Table {
        final Ticker ticker;
        final ReentrantLock lock = new ReentrantLock();
        /** Sorted by name, so that listing can page by name (keyset pagination). */
        final TreeMap<String, LocalName> entries = new TreeMap<>();

        final List<LocalLockProvider> clients = new CopyOnWriteArrayList<>();
        long lastToken;
        boolean down;

        Table(Ticker ticker) {
            this.ticker = ticker;
        }

        /**
         * The name's state with lapsed holders and waiters dropped, or null when nothing is left of
         * it; call with the lock held.
         */
        @Nullable
        LocalName live(String name, LocalLockProvider caller) {
            check(name, caller);
            LocalName n = entries.get(name);
            if (n != null) {
                n.prune(ticker.nanoTime());
                if (!n.inUse()) {
                    entries.remove(name);
                    return null;
                }
            }
            return n;
        }

        /** Removes {@code n} when nothing is left of it; call with the lock held. */
        void dropIfUnused(String name, LocalName n) {
            if (!n.inUse()) {
                entries.remove(name, n);
            }
        }

        /** The next fencing token of the table; call with the lock held. */
        long nextToken(String name) {
            if (lastToken == Long.MAX_VALUE) {
                // Never wrap to a negative token; only startTokensAt comes this close.
                throw new LockException(name, "the fencing tokens are used up");
            }
            return ++lastToken;
        }

        /** Fails when the caller is closed or the backend stopped; call with the lock held. */
        void check(String name, LocalLockProvider caller) {
            caller.checkOpen(name);
            if (down) {
                throw new BackendUnavailableException(name, "the local lock backend is stopped", null);
            }
        }

        void notifyReleased(String name) {
            for (LocalLockProvider client : clients) {
                client.listeners.released(name, null);
            }
        }
    }
}
