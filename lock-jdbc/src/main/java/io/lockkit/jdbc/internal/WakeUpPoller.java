package io.lockkit.jdbc.internal;

import io.lockkit.spi.support.OutageTracker;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Wake-ups where the database has no notifications (MariaDB, MySQL): one thread and one connection
 * per provider look at the locks its threads wait for, all in one query ({@link WatchStatement}),
 * and tell the waiters what changed: a lock handed to one of them (only that one wakes), or a free
 * lock (one waiter per lock wakes). Started by the provider's first wait. Thread-safe.
 */
// Design notes.
// - No thundering herd: however many threads of a process wait, one query per interval looks at
//   every lock they wait for (primary-key look-ups), and a release hands the lock to one waiter, so
//   only its thread attempts; a lock found free wakes one waiter per process.
// - Bounded latency at a bounded cost: the interval starts at MIN_INTERVAL_MILLIS after anything
//   changed (a hot lock changes hands all the time: its waiters learn within a few milliseconds) and
//   doubles while nothing does, up to the poll interval (250 ms by default), so a waiter of a lock
//   held for minutes costs its process four queries a second. A new waiter looks at once.
// - A releasing process wakes its own grantee itself (and passes direct grants without any wake-up),
//   so polls only matter across processes. The connection is the poller's own (as LISTEN's is on
//   PostgreSQL); when it fails, it is an outage (OutageTracker, as for every wake-up connection): waiters are told
//   to look again and fall back to their retry hints, no longer than the poll interval.
public final class WakeUpPoller implements WakeUpSource {

    /** The shortest pause between two looks: after a change, or when a new waiter came. */
    public static final long MIN_INTERVAL_MILLIS = 2;

    private static final int KEYS_PER_QUERY = 500;

    private final ConnectionSource connections;
    private final MariaDbDialect dialect;
    private final Dispatcher dispatcher;
    private final long maxIntervalMillis;
    private final OutageTracker outages;
    private final Thread thread;
    private final CountDownLatch firstLook = new CountDownLatch(1);
    /** The state last seen per watched key ("free", or owner/hold count/token). */
    private final Map<String, String> seen = new HashMap<>();

    private volatile boolean live;
    private volatile boolean closed;
    private volatile boolean hurry;
    private volatile @Nullable Connection current;

    public WakeUpPoller(
            ConnectionSource connections, MariaDbDialect dialect, Dispatcher dispatcher, ThreadFactory threads) {
        this.connections = connections;
        this.dialect = dialect;
        this.dispatcher = dispatcher;
        this.maxIntervalMillis =
                Math.max(MIN_INTERVAL_MILLIS, dialect.context().pollInterval().toMillis());
        this.outages = new OutageTracker(
                "the wake-up poller's connection", dialect.context().timeout(), dispatcher::missed);
        this.thread = threads.newThread(this::run);
        thread.setDaemon(true);
        thread.start();
    }

    /** Looks at once (a new waiter), and waits up to {@code timeout} for the first look. */
    @Override
    public boolean awaitLive(Duration timeout) {
        hurry = true;
        LockSupport.unpark(thread);
        try {
            firstLook.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return live;
    }

    @Override
    public boolean live() {
        return live;
    }

    private void run() {
        long interval = MIN_INTERVAL_MILLIS;
        while (!closed) {
            long pause;
            try {
                Connection c = current;
                if (c == null) {
                    c = connections.openDedicated();
                    current = c;
                }
                boolean changed = look(c);
                resumed();
                interval = changed || hurry ? MIN_INTERVAL_MILLIS : Math.min(maxIntervalMillis, interval * 2);
                hurry = false;
                pause = interval;
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    break;
                }
                drop();
                pause = failed(e);
                interval = MIN_INTERVAL_MILLIS;
            }
            if (!closed && pause > 0 && !hurry) {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(pause));
            }
        }
        live = false;
        drop();
        firstLook.countDown();
    }

    /** One look at every waited key; tells the waiters what changed. Returns whether anything did. */
    private boolean look(Connection c) throws SQLException {
        Set<String> keys = new HashSet<>(dispatcher.waitedKeys());
        seen.keySet().retainAll(keys);
        if (keys.isEmpty()) {
            return false;
        }
        boolean changed = false;
        List<String> all = List.copyOf(keys);
        for (int from = 0; from < all.size(); from += KEYS_PER_QUERY) {
            List<String> chunk = all.subList(from, Math.min(all.size(), from + KEYS_PER_QUERY));
            for (WatchStatement.Row row : dialect.watch(c, chunk)) {
                String state = row.free() ? "free" : row.owner() + "/" + row.holdCount() + "/" + row.token();
                boolean news = !state.equals(seen.put(row.key(), state));
                changed |= news;
                if (row.free()) {
                    // Free: one waiter here looks, every time (if it did not take it, it is still free).
                    dispatcher.released(row.key(), null);
                } else if (row.handedOver() && news) {
                    dispatcher.released(row.key(), Objects.requireNonNull(row.owner(), "owner"));
                }
            }
        }
        return changed;
    }

    /** The look succeeded: the poller is live, and an outage (if any) is over. */
    private void resumed() {
        live = true;
        firstLook.countDown();
        if (outages.over()) {
            dispatcher.missed();
        }
    }

    /** A look failed: an outage begins (waiters look again), or goes on. Returns the pause in ms. */
    private long failed(Exception e) {
        firstLook.countDown();
        boolean was = live;
        live = false;
        if (was) {
            dispatcher.missed();
        }
        return outages.failed(was, e);
    }

    private void drop() {
        Connection c = current;
        current = null;
        if (c != null) {
            ConnectionSource.closeQuietly(c);
        }
    }

    @Override
    public void close() {
        // No abort: a look is short (primary-key look-ups), and the thread closes its connection
        // after it; a stalled database is bounded by the socket timeout, and the join below.
        closed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
