package io.lockkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The live holds of one {@link ProviderLockFactory}: from registration until released or lost.
 * {@link Holds} adds and removes them; {@link Gate} asks whether an owner still holds a name while
 * the factory drains. Thread-safe (a concurrent set).
 */
final class LiveHolds {

    // The factory's logger, as when the drain was the factory's: the same log category.
    private static final System.Logger LOG = System.getLogger(ProviderLockFactory.class.getName());

    private final Set<Hold> live = ConcurrentHashMap.newKeySet();

    void add(Hold h) {
        live.add(h);
    }

    void remove(Hold h) {
        live.remove(h);
    }

    /** How many holds are live. */
    int count() {
        return live.size();
    }

    boolean isEmpty() {
        return live.isEmpty();
    }

    /** The live holds now, a copy. */
    List<Hold> snapshot() {
        return new ArrayList<>(live);
    }

    /** The live holds of {@code name} now, a copy. */
    List<Hold> of(String name) {
        List<Hold> of = new ArrayList<>();
        for (Hold h : live) {
            if (h.name.equals(name)) {
                of.add(h);
            }
        }
        return of;
    }

    /** Whether {@code owner} has a live hold of {@code name} that is still held. */
    boolean holds(String name, String owner) {
        for (Hold h : live) {
            if (h.owner.equals(owner) && h.name.equals(name) && h.state() == Hold.State.HELD) {
                return true;
            }
        }
        return false;
    }

    /**
     * Waits until every hold of this factory has been released by its owner, or {@code drainTime}
     * has passed; the watchdog keeps renewing them meanwhile. Shutdown only, so a short poll
     * rather than a signal on every release.
     */
    void drain(Duration drainTime) {
        long start = System.nanoTime();
        long deadline = start + drainTime.toNanos();
        int held = count();
        if (held == 0) {
            // Logged too: where a server lets running requests finish before it stops the
            // application, this line shows that the drain ran and found nothing left to wait for.
            LOG.log(System.Logger.Level.INFO, "lockkit: closing; no held lock to wait for");
            return;
        }
        LOG.log(
                System.Logger.Level.INFO,
                "lockkit: closing; waiting up to {0} for {1} held lock(s) to be released",
                drainTime,
                held);
        while (!isEmpty() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(
                    Math.min(TimeUnit.MILLISECONDS.toNanos(5), Math.max(1, deadline - System.nanoTime())));
        }
        LOG.log(
                System.Logger.Level.INFO,
                "lockkit: closing; waited {0} ms, {1} held lock(s) left to release",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
                count());
    }
}
