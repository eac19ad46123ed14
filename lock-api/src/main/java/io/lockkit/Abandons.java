package io.lockkit;

import io.lockkit.spi.LockProvider;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Abandons that failed because the backend could not be reached (a restart, an outage), sent again
 * once a call of this client reaches it: the queue entry of a wait that ended would otherwise stay,
 * be handed the lock, and keep it from everyone for the backend's claim timeout. Only abandons of
 * owners that never hold or wait again are sent again: a handle's owner is used for one acquisition.
 * A thread's owner is used for every lock call of that thread, so a late abandon of its ended wait
 * could meet the thread's next hold of the same name (the backend tells the waits apart only by a
 * wait id that a grant may still carry) and free it while the thread holds it; such an abandon is
 * not sent again, and the entry it leaves lapses at its queue deadline. At most {@value #MAX_PENDING}
 * are kept. Thread-safe.
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
    private final Predicate<String> reused;
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean sending = new AtomicBoolean();

    /** {@code reused}: whether an owner id may hold or wait again after a wait of it ended. */
    Abandons(LockProvider provider, Executor executor, Predicate<String> reused) {
        this.provider = provider;
        this.executor = executor;
        this.reused = reused;
    }

    /** Leaves the backend's queue now, or once the backend answers again when it cannot be reached. */
    void abandon(String name, String owner, long waitId) {
        try {
            provider.abandon(name, owner, waitId);
        } catch (BackendUnavailableException e) {
            if (reused.test(owner)) {
                LOG.log(System.Logger.Level.DEBUG, "abandoning the wait for lock '" + name + "' failed", e);
                return;
            }
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
