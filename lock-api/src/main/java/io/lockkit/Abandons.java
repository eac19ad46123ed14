package io.lockkit;

import io.lockkit.spi.LockProvider;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Abandons that failed because the backend could not be reached (a restart, an outage), sent again
 * once a call of this client reaches it: the queue entry of a wait that ended would otherwise stay,
 * be handed the lock, and keep it from everyone for the backend's claim timeout. Abandon is
 * idempotent, so a late one is harmless. At most {@value #MAX_PENDING} are kept. Thread-safe.
 */
final class Abandons {

    private static final System.Logger LOG = System.getLogger(Abandons.class.getName());
    static final int MAX_PENDING = 10_000;

    /** One abandon to send again. */
    private static final class Pending {
        final String name;
        final String owner;
        final long waitId;

        Pending(String name, String owner, long waitId) {
            this.name = name;
            this.owner = owner;
            this.waitId = waitId;
        }
    }

    private final LockProvider provider;
    private final Executor executor;
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean sending = new AtomicBoolean();

    Abandons(LockProvider provider, Executor executor) {
        this.provider = provider;
        this.executor = executor;
    }

    /** Leaves the backend's queue now, or once the backend answers again when it cannot be reached. */
    void abandon(String name, String owner, long waitId) {
        try {
            provider.abandon(name, owner, waitId);
        } catch (BackendUnavailableException e) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "abandoning the wait for lock '" + name + "' failed; sent again later",
                    e);
            if (size.incrementAndGet() <= MAX_PENDING) {
                pending.add(new Pending(name, owner, waitId));
            } else {
                size.decrementAndGet();
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "abandoning the wait for lock '" + name + "' failed", e);
        }
    }

    /** A call of this client reached the backend: sends the pending abandons, on the executor. */
    void backendAnswered() {
        if (pending.isEmpty() || !sending.compareAndSet(false, true)) {
            return;
        }
        try {
            executor.execute(this::sendPending);
        } catch (RejectedExecutionException e) {
            sending.set(false); // closing
        }
    }

    private void sendPending() {
        try {
            Pending p;
            while ((p = pending.peek()) != null) {
                try {
                    provider.abandon(p.name, p.owner, p.waitId);
                } catch (BackendUnavailableException e) {
                    return; // unreachable again: the next answer sends them
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "abandoning the wait for lock '" + p.name + "' failed", e);
                }
                pending.remove(p);
                size.decrementAndGet();
            }
        } finally {
            sending.set(false);
        }
    }

    /** Abandons waiting to be sent, for tests. */
    int pending() {
        return size.get();
    }
}
