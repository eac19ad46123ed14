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
 * restart that forgets every hold. It has every {@linkplain LockProvider.Capability capability}
 * and none of the optional direct hand-over: a release frees the lock and wakes one waiter per
 * client. After {@link #close()}, every call of this client but {@code close()},
 * {@code capabilities()} and {@code abandon} (which does nothing) throws {@link LockException}.
 * Thread-safe.
 *
 * <p>Design: one table of entries (owner, hold count, token, lease deadline) under one lock,
 * sorted by name so that {@link #list} pages by name (the cursor is the last name listed); leases
 * lapse lazily when an entry is next looked at (a listing skips lapsed entries without removing
 * them). It keeps no wait queue, so {@link LockState#waiters()} is -1. Tokens come from one counter shared by all
 * names, so they increase per name across expiry and restarts and cost no memory per name.
 */
public final class LocalLockProvider implements LockProvider {

    private static final Set<Capability> CAPABILITIES = Set.of(
            Capability.FENCING_TOKENS,
            Capability.FORCE_RELEASE,
            Capability.EXPLICIT_LEASE,
            Capability.INSPECTION,
            Capability.LISTING);

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
            Entry e = table.live(name, this);
            long now = table.ticker.nanoTime();
            if (e == null) {
                if (table.lastToken == Long.MAX_VALUE) {
                    // Never wrap to a negative token; only startTokensAt comes this close.
                    throw new LockException(name, "the fencing tokens are used up");
                }
                e = new Entry(
                        request.owner(),
                        ++table.lastToken,
                        now + request.lease().toNanos());
                table.entries.put(name, e);
                return Acquisition.acquired(e.token);
            }
            if (e.owner.equals(request.owner())) {
                e.count++;
                e.deadline = Math.max(e.deadline, now + request.lease().toNanos());
                return Acquisition.acquired(e.token);
            }
            return Acquisition.busy(Duration.ofNanos(e.deadline - now));
        } finally {
            table.lock.unlock();
        }
    }

    @Override
    public Release release(String name, String owner) {
        table.lock.lock();
        try {
            Entry e = table.live(name, this);
            if (e == null || !e.owner.equals(owner)) {
                return Release.NOT_HELD;
            }
            if (--e.count > 0) {
                return Release.STILL_HELD;
            }
            table.entries.remove(name);
        } finally {
            table.lock.unlock();
        }
        table.notifyReleased(name);
        return Release.RELEASED;
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        checkOpen(renewals.isEmpty() ? null : renewals.get(0).name());
        List<Renewal> gone = new ArrayList<>();
        table.lock.lock();
        try {
            long now = table.ticker.nanoTime();
            for (Renewal r : renewals) {
                Entry e = table.live(r.name(), this);
                if (e == null || !e.owner.equals(r.owner())) {
                    gone.add(r);
                } else {
                    e.deadline = now + r.lease().toNanos();
                }
            }
        } finally {
            table.lock.unlock();
        }
        return gone;
    }

    @Override
    public boolean forceRelease(String name) {
        boolean held;
        table.lock.lock();
        try {
            held = table.live(name, this) != null;
            table.entries.remove(name);
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
            Entry e = table.live(name, this);
            if (e == null) {
                return Optional.empty();
            }
            return Optional.of(state(e));
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
            for (Map.Entry<String, Entry> en : from.entrySet()) {
                if (!en.getKey().startsWith(prefix)) {
                    break;
                }
                if (examined++ == pageSize) {
                    return new ListPage(page, last);
                }
                last = en.getKey();
                if (en.getValue().deadline - now > 0) {
                    page.add(new HeldLock(en.getKey(), state(en.getValue())));
                }
            }
            return new ListPage(page, null);
        } finally {
            table.lock.unlock();
        }
    }

    private LockState state(Entry e) {
        return new LockState(
                Map.of(e.owner, e.count), Duration.ofNanos(e.deadline - table.ticker.nanoTime()), e.token, -1);
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

    private static final class Entry {
        final String owner;
        final long token;
        int count = 1;
        long deadline;

        Entry(String owner, long token, long deadline) {
            this.owner = owner;
            this.token = token;
            this.deadline = deadline;
        }
    }

    private static final class Table {
        final Ticker ticker;
        final ReentrantLock lock = new ReentrantLock();
        /** Sorted by name, so that listing can page by name (keyset pagination). */
        final TreeMap<String, Entry> entries = new TreeMap<>();

        final List<LocalLockProvider> clients = new CopyOnWriteArrayList<>();
        long lastToken;
        boolean down;

        Table(Ticker ticker) {
            this.ticker = ticker;
        }

        /** The entry of a held lock, dropping it if its lease has run out; call with the lock held. */
        @Nullable
        Entry live(String name, LocalLockProvider caller) {
            check(name, caller);
            Entry e = entries.get(name);
            if (e != null && e.deadline - ticker.nanoTime() <= 0) {
                entries.remove(name);
                return null;
            }
            return e;
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
