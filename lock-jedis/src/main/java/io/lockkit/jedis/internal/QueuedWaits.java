package io.lockkit.jedis.internal;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The waits a provider queued in Redis and has not seen end, each with the id of the owner's
 * latest such wait: the acquire script removes an owner's old queue entry only when told it may
 * have one (so the uncontended path runs no queue command), and closing the provider leaves no
 * entry behind for a hand-over to a waiter that is gone. Thread-safe.
 */
public final class QueuedWaits {

    /** A queued owner of a lock. */
    public static final class Entry {
        private final String name;
        private final String owner;

        // Not a record: a record's generated equals/hashCode goes through
        // java.lang.runtime.ObjectMethods, whose cache on JDK 17 keeps the class, and with it a
        // Jakarta EE application's class loader, alive after undeploy.
        Entry(String name, String owner) {
            this.name = name;
            this.owner = owner;
        }

        public String name() {
            return name;
        }

        public String owner() {
            return owner;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry other && name.equals(other.name) && owner.equals(other.owner);
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, owner);
        }
    }

    private final Map<Entry, Long> queued = new ConcurrentHashMap<>();

    /** Whether {@code owner} may have an entry in the queue of lock {@code name}. */
    public boolean mayBeQueued(String name, String owner) {
        return !queued.isEmpty() && queued.containsKey(new Entry(name, owner));
    }

    /** The owner's wait {@code waitId} may have queued it (its attempt found the lock busy, or failed). */
    public void queued(String name, String owner, long waitId) {
        queued.put(new Entry(name, owner), waitId);
    }

    /** The owner holds the lock, or stopped waiting: it has no queue entry now. */
    public void ended(String name, String owner) {
        if (!queued.isEmpty()) {
            queued.remove(new Entry(name, owner));
        }
    }

    /**
     * The owner's wait {@code waitId} was granted the lock outright. Only that wait's record goes:
     * the grantee may have taken the lock through an attempt of its own meanwhile and queued
     * again in a new wait.
     */
    public void granted(String name, String owner, long waitId) {
        queued.remove(new Entry(name, owner), waitId);
    }

    /** Leaves a wait queue on the backend. */
    @FunctionalInterface
    public interface Abandon {
        void abandon(String name, String owner, long waitId);
    }

    /**
     * Leaves every queue this provider's waits may be in (on close); a failure is logged, and its
     * queue entry lapses by itself.
     */
    public void leaveAll(Abandon abandon) {
        for (Map.Entry<Entry, Long> e : snapshot()) {
            try {
                abandon.abandon(e.getKey().name(), e.getKey().owner(), e.getValue());
            } catch (RuntimeException ex) {
                System.getLogger(QueuedWaits.class.getName())
                        .log(
                                System.Logger.Level.DEBUG,
                                "leaving the wait queue of lock '" + e.getKey().name()
                                        + "' on close failed; the entry lapses by itself",
                                ex);
            }
        }
    }

    /** The queued waits now, with their wait ids. */
    public List<Map.Entry<Entry, Long>> snapshot() {
        return List.copyOf(queued.entrySet());
    }
}
