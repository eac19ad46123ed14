package io.lockkit.jedis.internal;

import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.util.Pool;

/**
 * The connections of a {@link CommandBatcher}: borrowed from the pool, and, when the batcher keeps
 * them, kept between batches instead of going back. A pool's borrow and return allocate on every
 * batch (its bookkeeping's instants and durations), where keeping allocates nothing. A kept
 * connection stays until it breaks, {@link #dropKept} or {@link #close}; when one breaks, the others
 * are dropped for good too (a restart or a kill leaves them as dead), so that the call's retry
 * takes a fresh one. Thread-safe and lock-free.
 */
final class BatchConnections {

    private static final System.Logger LOG = System.getLogger(BatchConnections.class.getName());

    private final Pool<Connection> pool;
    /** Kept connections; a null slot keeps none. No slots: the batcher keeps nothing. */
    private final AtomicReferenceArray<@Nullable Connection> kept;

    private volatile boolean closed;

    BatchConnections(Pool<Connection> pool, int keep) {
        this.pool = pool;
        this.kept = new AtomicReferenceArray<>(keep);
    }

    /** A kept connection, else one from the pool. */
    Connection take() {
        for (int i = 0; i < kept.length(); i++) {
            Connection c = kept.getAndSet(i, null);
            if (c != null) {
                return c;
            }
        }
        return pool.getResource();
    }

    /** Keeps {@code connection} for the next batch when it is sound and there is room; else returns it to the pool. */
    void giveBack(Connection connection) {
        if (connection.isBroken()) {
            discardKept();
        } else if (keep(connection)) {
            return;
        }
        returnToPool(connection);
    }

    /** Returns the kept connections to the pool. */
    void dropKept() {
        for (int i = 0; i < kept.length(); i++) {
            Connection c = kept.getAndSet(i, null);
            if (c != null) {
                returnToPool(c);
            }
        }
    }

    /** Keeps nothing from now on and returns the kept connections, so that the pool can close them all. */
    void close() {
        closed = true;
        dropKept();
    }

    private boolean keep(Connection connection) {
        if (closed) {
            return false;
        }
        for (int i = 0; i < kept.length(); i++) {
            if (kept.compareAndSet(i, null, connection)) {
                if (closed) { // close() may have emptied the slots before this one was filled
                    dropKept();
                }
                return true;
            }
        }
        return false;
    }

    /** Closes the kept connections for good (the pool makes new ones as needed). */
    private void discardKept() {
        for (int i = 0; i < kept.length(); i++) {
            Connection c = kept.getAndSet(i, null);
            if (c != null) {
                c.setBroken();
                returnToPool(c);
            }
        }
    }

    /** Returns a connection to the pool (a broken one the pool then drops). */
    private static void returnToPool(Connection connection) {
        try {
            connection.close();
        } catch (RuntimeException e) {
            // DEBUG: it fails when the pool, replacing a broken connection, cannot connect either (Redis
            // is down), which the calls that failed already report; a warning with a stack trace here
            // was one more of them in every outage, saying nothing an operator can act on.
            LOG.log(System.Logger.Level.DEBUG, "returning a Redis connection to its pool failed", e);
        }
    }
}
