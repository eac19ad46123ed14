package io.lockkit.jdbc.internal;

import io.lockkit.spi.support.OutageTracker;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * One LISTEN connection and its thread for a provider on PostgreSQL: it receives the release
 * notifications of every client of the lock table ({@link NotifyPayload}) and hands each to the
 * dispatcher, except hand-overs this provider's own releases made (it woke their grantees itself).
 * Loaded only when the PostgreSQL driver is on the class path. Thread-safe.
 *
 * <p>Design: the thread blocks in {@code getNotifications(timeout)}; every {@link #HEALTH_CHECK} without
 * traffic it runs {@code SELECT 1}, so a connection that died silently (a stalled server, a dropped
 * network path) is noticed within that time plus the network timeout. A lost connection is an
 * {@link OutageTracker} outage, as for the Redis provider's wake-ups: one warning, the dispatcher told that
 * notifications may be missed (waiters check again, and poll while it reconnects), the first
 * reconnect at once and the next ones after pauses growing from 25 to 200 ms, waiters alerted again
 * if it lasts twice the timeout, and told once more when it LISTENs again (with one line in the log).
 */
public final class PgListener implements WakeUpSource {

    private static final System.Logger LOG = System.getLogger(PgListener.class.getName());
    private static final int WAIT_MILLIS = 500;
    private static final long HEALTH_CHECK = TimeUnit.SECONDS.toNanos(5);

    private final ConnectionSource connections;
    private final String channel;
    private final String origin;
    private final Dispatcher dispatcher;
    private final int queryTimeoutSeconds;
    private final OutageTracker outages;
    private final Thread thread;
    private final CountDownLatch firstListen = new CountDownLatch(1);
    private volatile boolean listening;
    private volatile boolean closed;
    private volatile @Nullable Connection current;

    /** Whether the PostgreSQL driver (and so this class) can be used. */
    public static boolean driverPresent() {
        try {
            Class.forName("org.postgresql.PGConnection", false, PgListener.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Starts the thread, which connects and LISTENs on {@code channel}; notifications of releases
     * by the provider {@code origin} (this one) are skipped.
     */
    public PgListener(
            ConnectionSource connections,
            String channel,
            String origin,
            Dispatcher dispatcher,
            ThreadFactory threads,
            Duration timeout) {
        this.connections = connections;
        this.channel = channel;
        this.origin = origin;
        this.dispatcher = dispatcher;
        this.queryTimeoutSeconds = (int) Math.max(1, (timeout.toMillis() + 999) / 1000);
        this.outages = new OutageTracker(
                "the LISTEN connection for lock releases on channel " + channel, timeout, dispatcher::missed);
        this.thread = threads.newThread(this::run);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public boolean awaitLive(Duration timeout) {
        try {
            firstListen.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return listening;
    }

    @Override
    public boolean live() {
        return listening;
    }

    private void run() {
        while (!closed) {
            Connection c = null;
            long pause = 0;
            try {
                c = connections.openDedicated();
                current = c;
                if (!c.isWrapperFor(PGConnection.class)) {
                    // Another driver (or a pool that does not unwrap): no notifications to read.
                    LOG.log(
                            System.Logger.Level.WARNING,
                            "the DataSource's connections are not the PostgreSQL JDBC"
                                    + " driver's (or do not unwrap to it): no LISTEN; waiters poll");
                    break;
                }
                listen(c);
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    break;
                }
                pause = failed(e);
            } finally {
                current = null;
                if (c != null) {
                    unlistenAndClose(c);
                }
            }
            if (!closed && pause > 0) {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(pause));
            }
        }
        listening = false;
        firstListen.countDown();
    }

    /**
     * After a failure: a connection that was listening broke, or the first connection could not be
     * made (a new outage: one warning, waiters told to look again, the next attempt at once), or
     * a reconnect attempt failed (the next one after a growing pause). Returns the pause in ms.
     */
    private long failed(Exception e) {
        firstListen.countDown();
        boolean was = listening;
        listening = false;
        if (was) {
            dispatcher.missed();
        }
        return outages.failed(was, e);
    }

    /** LISTENs on {@code c} and hands notifications on until closed or the connection fails. */
    private void listen(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.setQueryTimeout(queryTimeoutSeconds);
            s.execute("LISTEN " + channel);
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        listening = true;
        firstListen.countDown();
        if (outages.over()) {
            dispatcher.missed();
        }
        long quietSince = System.nanoTime();
        while (!closed) {
            PGNotification[] received = pg.getNotifications(WAIT_MILLIS);
            if (received != null && received.length > 0) {
                for (PGNotification n : received) {
                    dispatch(n.getParameter());
                }
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > HEALTH_CHECK) {
                try (Statement s = c.createStatement()) {
                    s.setQueryTimeout(queryTimeoutSeconds);
                    s.execute("SELECT 1");
                }
                quietSince = System.nanoTime();
            }
        }
    }

    private void dispatch(String payload) {
        NotifyPayload.Notice n = NotifyPayload.decode(payload);
        if (!origin.equals(n.origin())) {
            dispatcher.released(n.key(), n.grantee());
        }
    }

    private void unlistenAndClose(Connection c) {
        try {
            if (!c.isClosed()) {
                try (Statement s = c.createStatement()) {
                    s.setQueryTimeout(1);
                    // A pooled connection goes back to the application's pool: leave it listening to nothing.
                    s.execute("UNLISTEN *");
                }
            }
        } catch (SQLException | RuntimeException e) {
            // broken anyway
        }
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            // nothing more to do
        }
    }

    @Override
    public void close() {
        closed = true;
        Connection c = current;
        if (c != null) {
            try {
                // Unblocks getNotifications at once; the thread then closes the connection.
                c.abort(Runnable::run);
            } catch (SQLException | RuntimeException e) {
                // the thread notices closed within WAIT_MILLIS anyway
            }
        }
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
