package io.lockkit;

import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.LockState;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One name of {@link LocalLockProvider}'s table: its holders (each with its claim, hold count,
 * token and lease), the capacity stored with it, and the queue of waiting claims that the
 * admission rule of {@link Claim} consults (writer preference, fair order). Not thread-safe: the
 * table's lock guards every call. Times are the table's ticker nanos.
 *
 * <p>Design: the queue holds only waits that may block others, an exclusive claim or a fair one;
 * an entry lives until its owner is admitted, abandons, or stops asking (its deadline, renewed by
 * every attempt, is the wait left or the holders' lease, whichever is shorter, plus a slack), so a
 * dead waiter blocks for that long at most.
 */
final class LocalName {

    /** How long a queue entry outlives its owner's latest attempt beyond the retry hint it got. */
    static final long QUEUE_SLACK_NANOS = Duration.ofSeconds(1).toNanos();

    static final class Holder {
        final Claim claim;
        final long token;
        int count = 1;
        long deadline;

        Holder(Claim claim, long token, long deadline) {
            this.claim = claim;
            this.token = token;
            this.deadline = deadline;
        }
    }

    private record Waiter(Claim claim, long deadline) {}

    /**
     * Loaded with this class: a factory's close may queue a wait's last attempt, and by then an
     * application server that undeploys the application may refuse to load classes
     * (CloseAfterTheLoaderStopsTest).
     */
    @SuppressWarnings("unused")
    private static final Class<?> LOADED_WITH_THIS = Waiter.class;

    final Map<String, Holder> holders = new LinkedHashMap<>();
    private final Map<String, Waiter> queue = new LinkedHashMap<>();
    /** The stored capacity of a bounded shared name, -1 when none is stored. */
    private int capacity = -1;

    /** Drops lapsed holders and queue entries; returns whether a holder lapsed. */
    boolean prune(long now) {
        queue.values().removeIf(w -> w.deadline - now <= 0);
        return holders.values().removeIf(h -> h.deadline - now <= 0);
    }

    /** Whether the name is worth keeping: held, waited for, or configured. */
    boolean inUse() {
        return !holders.isEmpty() || !queue.isEmpty() || capacity >= 0;
    }

    /**
     * The attempt of {@code request} after {@link #prune}: the holder it got (reentrant or new;
     * {@code tokens} numbers a new one), or null when busy (a waiting exclusive or fair claim is
     * queued then).
     *
     * @throws IllegalArgumentException when a shared claim's weight exceeds the stored capacity
     */
    @Nullable
    Holder attempt(LockRequest request, long now, java.util.function.LongSupplier tokens) {
        String owner = request.owner();
        long leaseEnd = now + request.lease().toNanos();
        Holder mine = holders.get(owner);
        if (mine != null) {
            mine.count++;
            mine.deadline = Math.max(mine.deadline, leaseEnd);
            return mine;
        }
        Claim claim = request.claim();
        if (admits(owner, claim)) {
            queue.remove(owner);
            Holder h = new Holder(claim, tokens.getAsLong(), leaseEnd);
            holders.put(owner, h);
            return h;
        }
        if (request.waiting() && (claim.exclusive() || claim.fair())) {
            long keep = Math.min(request.maxWait().toNanos(), retryAfter(now)) + QUEUE_SLACK_NANOS;
            queue.put(owner, new Waiter(claim, now + keep)); // a queued owner keeps its place
        }
        return null;
    }

    private boolean admits(String owner, Claim claim) {
        if (claim.exclusive()) {
            return holders.isEmpty() && !(claim.fair() && waitsBefore(owner, false));
        }
        int cap = capacityFor(claim);
        int used = 0;
        for (Map.Entry<String, Holder> e : holders.entrySet()) {
            Holder h = e.getValue();
            if (h.claim.exclusive() && !e.getKey().equals(claim.beside())) {
                return false;
            }
            if (!h.claim.exclusive()) {
                used += h.claim.weight();
            }
        }
        if (cap != Claim.UNBOUNDED && used + claim.weight() > cap) {
            return false;
        }
        if (claim.beside() != null) {
            return true; // a downgrade is never blocked by waiters
        }
        return !waitsBefore(owner, !claim.fair());
    }

    /**
     * Whether a live waiter queued before {@code owner} (all of them when it is not queued) blocks
     * it: only exclusive ones when {@code exclusiveOnly} (writer preference), else any.
     */
    private boolean waitsBefore(String owner, boolean exclusiveOnly) {
        for (Map.Entry<String, Waiter> e : queue.entrySet()) {
            if (e.getKey().equals(owner)) {
                return false;
            }
            if (!exclusiveOnly || e.getValue().claim.exclusive()) {
                return true;
            }
        }
        return false;
    }

    /** The capacity a bounded shared claim counts against: the stored one, else the claim's, stored now. */
    private int capacityFor(Claim claim) {
        if (claim.capacity() == Claim.UNBOUNDED) {
            return Claim.UNBOUNDED;
        }
        if (capacity < 0) {
            capacity = claim.capacity();
        }
        if (claim.weight() > capacity) {
            throw new IllegalArgumentException("permits must not exceed the capacity " + capacity
                    + " stored with the name, was " + claim.weight());
        }
        return capacity;
    }

    /** Sets the stored capacity (an operator's change). */
    void capacity(int capacity) {
        this.capacity = capacity;
    }

    /** When a busy claim may try again at the latest: the first holder's lease end, else a waiter's. */
    long retryAfter(long now) {
        long soonest = Long.MAX_VALUE;
        for (Holder h : holders.values()) {
            soonest = Math.min(soonest, h.deadline - now);
        }
        if (soonest == Long.MAX_VALUE) {
            for (Waiter w : queue.values()) {
                soonest = Math.min(soonest, w.deadline - now);
            }
        }
        return soonest == Long.MAX_VALUE ? 0 : Math.max(0, soonest);
    }

    /** Ends one hold of {@code owner}; null when it held nothing, else whether its hold ended. */
    @Nullable
    Boolean release(String owner) {
        Holder h = holders.get(owner);
        if (h == null) {
            return null;
        }
        if (--h.count > 0) {
            return false;
        }
        holders.remove(owner);
        return true;
    }

    /** Drops {@code owner}'s queue entry; returns whether it had one. */
    boolean abandon(String owner) {
        return queue.remove(owner) != null;
    }

    /** Frees the name whoever holds it; returns whether anyone did. */
    boolean forceRelease() {
        boolean held = !holders.isEmpty();
        holders.clear();
        return held;
    }

    /**
     * The state operators see: every holder's count, the shared holders' claims, the stored
     * capacity, the longest lease left, the newest token; the waiters are not counted (only claims that may block others are queued here).
     */
    LockState state(long now) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, Claim> claims = new LinkedHashMap<>();
        long longest = 0;
        long token = 0;
        for (Map.Entry<String, Holder> e : holders.entrySet()) {
            Holder h = e.getValue();
            counts.put(e.getKey(), h.count);
            if (!h.claim.exclusive()) {
                claims.put(e.getKey(), h.claim);
            }
            longest = Math.max(longest, h.deadline - now);
            token = Math.max(token, h.token);
        }
        return new LockState(counts, Duration.ofNanos(longest), token, -1, claims, capacity);
    }
}
