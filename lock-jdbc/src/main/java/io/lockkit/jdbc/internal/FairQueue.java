package io.lockkit.jdbc.internal;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Fair claims ({@link io.lockkit.spi.Claim#fair()}: the fair lock, the fair semaphore) on every
 * dialect: a fair exclusive attempt, and the places in the name's queue that fair claims take, keep
 * and leave (for {@link SharedHolds} too). Remembers the places this provider took where the
 * dialect's abandon does not remove them. Thread-safe.
 */
// Design notes.
// - The queue is <table>_waiters, the one the exclusive acquire keeps (V1; H2's since V2), with an
//   arrival order (since, then owner) and a weight (V3). The admission rule is the in-JVM one: a
//   fair claim is admitted only when no live place of another owner is before its own (before it at
//   all when it has none); a holder (reentrant, or handed the lock to claim) is admitted at once.
// - A fair exclusive attempt is one statement on PostgreSQL (acquire.fair: a function that locks the
//   row, looks at the queue, and queues the owner or calls the acquire function). Elsewhere it is
//   fair.check, then, unless blocked, the dialect's own acquire; a blocked attempt takes or keeps
//   its place (fair.queue) and asks again within the poll interval (its place was written outside
//   the row's lock, so a release at that moment may not see it). Either way the acquire runs with
//   wait id 0: on PostgreSQL and MariaDB it takes the lock or queues the owner and raises the row's
//   wait_until, so the release hands the lock to the queue's head and wakes it; an entry with wait
//   id 0 is never granted outright and never passed by a later waiter of the releasing client.
// - The unfair path is untouched: these statements run for fair claims only.
// - A place lives for the waiter's next retry (at most the poll interval, or the lease it was told
//   of) plus the claim timeout: a waiter that dies delays the queue by that bound at most.
public final class FairQueue {

    /** The one-statement fair attempt, where the dialect has it (PostgreSQL: a function of V3). */
    static final String ONE_STATEMENT = "acquire.fair";

    private final Dialect sql;
    /** "key owner" of the places this provider took by fair.queue, where abandon must remove them. */
    private final Set<String> placed = ConcurrentHashMap.newKeySet();

    public FairQueue(Dialect sql) {
        this.sql = sql;
    }

    /**
     * One attempt of a fair exclusive claim; busy answers say when to ask again at the latest (the
     * lease left, or the poll interval when that is unknown or no wake-up would come).
     */
    public Acquisition acquire(
            JdbcCalls calls, LockProvider.LockRequest request, Dialect.Context context, boolean wakeUps) {
        AcquireStatement.Args args = new AcquireStatement.Args(
                Keys.of(request.name()),
                request.name(),
                request.owner(),
                request.lease(),
                request.maxWait(),
                0, // never granted outright: a fair waiter takes the lock in its turn
                context.claim(),
                context.gate(),
                context.lockTimeoutMs());
        AcquireStatement.Reply reply = calls.run(request.name(), "acquiring fairly", c -> {
            if (sql.statements().containsKey(ONE_STATEMENT)) {
                return sql.run(c, ONE_STATEMENT, args, AcquireStatement::decode, false);
            }
            return attempt(c, request, args, context);
        });
        if (reply instanceof AcquireStatement.Acquired a) {
            return Acquisition.acquired(a.token());
        }
        Duration left = ((AcquireStatement.Busy) reply).remainingLease();
        return Acquisition.busy(
                wakeUps ? (left == null ? context.pollInterval() : left) : shorter(left, context.pollInterval()));
    }

    /** The attempt in steps, where the dialect has no {@link #ONE_STATEMENT}: look, then acquire or queue. */
    private AcquireStatement.Reply attempt(
            Connection c, LockProvider.LockRequest r, AcquireStatement.Args args, Dialect.Context context)
            throws SQLException {
        FairStatement.Args look = FairStatement.Args.of(r.name(), r.owner(), 0, Duration.ZERO, r.lease());
        FairStatement.Check check = sql.run(c, "fair.check", look, FairStatement.Check::decode);
        Duration poll = context.pollInterval();
        if (!check.holder() && check.ahead() > 0) {
            // The place is written outside the row's lock: a release may miss it, so ask again soon.
            queue(c, r, 0, shorter(check.remaining(), poll), context);
            return new AcquireStatement.Busy(null);
        }
        AcquireStatement.Reply reply = sql.acquire(c, args);
        if (reply instanceof AcquireStatement.Acquired) {
            if (placed.remove(look.key() + " " + r.owner()) && !sql.queues()) {
                sql.update(c, "fair.leave", look); // elsewhere the acquire left the queue itself
            }
        } else if (!sql.queues()) {
            // The dialect's acquire queued nobody (H2): the place is taken here, and polled for.
            queue(c, r, 0, shorter(((AcquireStatement.Busy) reply).remainingLease(), poll), context);
            return new AcquireStatement.Busy(null);
        }
        return reply;
    }

    /**
     * Takes or keeps {@code r.owner()}'s place in the queue of {@code r.name()} for a claim of
     * {@code weight} (0: exclusive), when the request waits at all: until its next attempt, due
     * within {@code retry}, plus the claim timeout.
     */
    void queue(Connection c, LockProvider.LockRequest r, int weight, Duration retry, Dialect.Context context)
            throws SQLException {
        if (!r.waiting()) {
            return;
        }
        Duration keep = (r.maxWait().compareTo(retry) < 0 ? r.maxWait() : retry).plus(context.claim());
        FairStatement.Args a = FairStatement.Args.of(r.name(), r.owner(), weight, keep, r.lease());
        sql.update(c, "fair.queue", a);
        if (sql.statements().containsKey("fair.mark")) {
            sql.update(c, "fair.mark", a);
        }
        placed.add(a.key() + " " + r.owner());
    }

    /** Leaves {@code owner}'s place in {@code name}'s queue (a fair claim admitted), if it has one. */
    void leave(Connection c, String name, String owner) throws SQLException {
        placed.remove(Keys.of(name) + " " + owner);
        sql.update(c, "fair.leave", FairStatement.Args.of(name, owner, 0, Duration.ZERO, Duration.ZERO));
    }

    /**
     * Removes {@code owner}'s place in {@code name}'s queue (its wait ended without the lock), where
     * this provider took one by {@code fair.queue} and the dialect's own abandon does not remove it
     * (one statement then, else none).
     */
    public void abandon(JdbcCalls calls, String name, String owner) {
        if (placed.remove(Keys.of(name) + " " + owner) && !sql.queues()) {
            calls.run(name, "leaving the fair queue", c -> {
                leave(c, name, owner);
                return Boolean.TRUE;
            });
        }
    }

    private static Duration shorter(@Nullable Duration left, Duration poll) {
        return left == null || left.compareTo(poll) > 0 ? poll : left;
    }
}
