package io.lockkit.jdbc.internal;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Shared holds ({@link Claim.Mode#SHARED}: read locks, semaphore permits) on every dialect: the
 * attempt, the release and the renewal of shared holders, and the release of an exclusive holder
 * beside shared ones (a downgrade), each one short transaction of the dialect's {@code shared.<step>}
 * statements on a borrowed connection. Remembers which holds of its provider are shared, to route
 * their releases and renewals here. Thread-safe.
 */
// Design notes.
// - Storage: the lock row stays the name's one serialization point. An exclusive holder is the row's
//   owner, exactly as before, so the exclusive path is unchanged. Shared holders are rows of
//   <table>_holders (owner, weight, hold count, token, lease), each with its own lease; the lock row's
//   owner is then HOLDERS and its lease the longest of theirs (raised by every admission and renewal,
//   recomputed by every release), so an exclusive attempt sees the name busy until the last shared
//   lease ends and takes it over after, as it takes over any lapsed row. A bounded capacity is a row
//   of <table>_capacity, stored by the first bounded claim admitted and kept while the name is free.
// - Every step runs after the lock row is locked (inserted if absent, then SELECT ... FOR UPDATE), so
//   two attempts on one name are decided one after the other; tokens are drawn after that lock, from
//   the dialect's counter, above the row's token: one counter per name across modes.
// - Writer preference: an exclusive attempt that waits is queued in <table>_waiters (as before on
//   PostgreSQL and MariaDB; on H2 only behind shared holders); a live entry of another owner keeps new
//   shared claims out until it is admitted, abandons, or its entry lapses (its wait or the holders'
//   lease plus the claim timeout). A claim beside the exclusive holder (a downgrade) is not blocked.
// - Fair claims (V3): a fair shared claim is kept out by every live place before its own in the
//   queue (FairQueue), where a busy one then takes or keeps its place, after its attempt rolled back.
// - A busy attempt rolls back: it leaves nothing behind (but a fair claim's place, taken after).
public final class SharedHolds {

    private static final String STATE = "shared.state";
    private static final int ROW_TRIES = 3;

    private final Dialect sql;
    private final FairQueue fair;
    /** The owners of this provider's shared holds, by row key. */
    private final Map<String, Set<String>> holds = new ConcurrentHashMap<>();

    public SharedHolds(Dialect sql, FairQueue fair) {
        this.sql = sql;
        this.fair = fair;
    }

    /** The fair queue's places, which fair shared claims take too. */
    public FairQueue fair() {
        return fair;
    }

    /** Whether this provider holds {@code name} shared (for one of its owners): its releases come here. */
    public boolean involves(String name) {
        return !holds.isEmpty() && holds.containsKey(Keys.of(name));
    }

    /** Whether {@code owner}'s hold of {@code key} is one of this provider's shared holds. */
    public boolean isShared(String key, String owner) {
        Set<String> owners = holds.get(key);
        return owners != null && owners.contains(owner);
    }

    private void track(String key, String owner) {
        holds.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(owner);
    }

    private void forget(String key, String owner) {
        holds.computeIfPresent(key, (k, owners) -> {
            owners.remove(owner);
            return owners.isEmpty() ? null : owners;
        });
    }

    /**
     * One attempt of a shared claim, through {@code calls}; a busy answer says when to ask again at
     * the latest.
     *
     * @throws IllegalArgumentException when the claim's weight exceeds the capacity stored with the name
     */
    public Acquisition tryAcquire(JdbcCalls calls, LockProvider.LockRequest request, Dialect.Context context) {
        AcquireStatement.Reply reply = calls.run(request.name(), "acquiring shared", c -> acquire(c, request, context));
        return reply instanceof AcquireStatement.Acquired a
                ? Acquisition.acquired(a.token())
                : Acquisition.busy(retry(((AcquireStatement.Busy) reply).remainingLease(), context.pollInterval()));
    }

    /**
     * One attempt of a shared claim; a fair one that is busy takes or keeps its place in the queue.
     *
     * @throws IllegalArgumentException when the claim's weight exceeds the capacity stored with the name
     */
    public AcquireStatement.Reply acquire(Connection c, LockProvider.LockRequest request, Dialect.Context context)
            throws SQLException {
        SharedStatement.Args args = SharedStatement.Args.of(request, context);
        AcquireStatement.Reply reply;
        try {
            reply = inTransaction(
                    c, () -> attempt(c, args, request.claim()), r -> r instanceof AcquireStatement.Acquired);
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState()) || e.getErrorCode() == 1062) {
                // Another attempt inserted the name's row first: it decides; this one asks again.
                return new AcquireStatement.Busy(null);
            }
            throw e;
        }
        if (reply instanceof AcquireStatement.Acquired) {
            track(args.key(), args.owner());
        } else if (request.claim().fair()) {
            Duration retry = retry(((AcquireStatement.Busy) reply).remainingLease(), context.pollInterval());
            fair.queue(c, request, request.claim().weight(), retry, context); // the attempt rolled back
        }
        return reply;
    }

    private AcquireStatement.Reply attempt(Connection c, SharedStatement.Args a, Claim claim) throws SQLException {
        Optional<SharedRows.Row> locked = lockRow(c, a);
        if (locked.isEmpty()) {
            return new AcquireStatement.Busy(null);
        }
        SharedRows.Row row = locked.get();
        SharedRows.State state = sql.run(c, STATE, a, SharedRows.State::decode);
        boolean live = row.remainingMicros() > 0;
        if (!live && state.anyHolder()) {
            sql.update(c, "shared.clear", a); // the row lapsed, so did every holder's lease (or force release)
            state = state.withoutHolders();
        } else if (state.anyLapsed()) {
            sql.update(c, "shared.prune", a);
        }
        SharedRows.Holder mine = state.liveHolder(a.owner());
        if (mine != null) {
            sql.update(c, "shared.reenter", a);
            sql.update(c, "shared.extend", a);
            return new AcquireStatement.Acquired(mine.token());
        }
        String exclusive = live && !SharedStatement.HOLDERS.equals(row.owner()) ? row.owner() : null;
        if (exclusive != null && !exclusive.equals(claim.beside())) {
            return busy(row.remainingMicros());
        }
        if (claim.capacity() != Claim.UNBOUNDED) {
            Integer stored = state.capacity();
            int capacity = stored != null ? stored : claim.capacity();
            if (claim.weight() > capacity) {
                throw new IllegalArgumentException("permits must not exceed the capacity " + capacity
                        + " stored with the name, was " + claim.weight());
            }
            if (state.usedWeight() + claim.weight() > capacity) {
                return busy(state.soonestEnd());
            }
            if (stored == null) {
                sql.update(c, "shared.storeCapacity", a);
            }
        }
        if (claim.beside() == null && state.waiterBlocks(a.owner(), claim.fair())) {
            return busy(live ? row.remainingMicros() : state.soonestEnd());
        }
        if (claim.fair() && state.waiter(a.owner()) != null) {
            fair.leave(c, a.name(), a.owner());
        }
        SharedStatement.Args t = a.withToken(drawToken(c, a.withToken(Math.max(0, row.token()) + 1)));
        sql.update(c, "shared.insertHolder", t);
        sql.update(c, exclusive != null ? "shared.extend" : "shared.mark", t);
        return new AcquireStatement.Acquired(t.token());
    }

    /**
     * The name's row, inserted if absent and locked. The lock can miss the row: a SELECT ... FOR
     * UPDATE that waited for a transaction that deleted it finds none (READ COMMITTED), or a row
     * another transaction inserted is not visible yet (H2); then the insert and the lock are tried
     * again, and after {@link #ROW_TRIES} misses the attempt is busy (it asks again): nothing is
     * decided without the lock.
     */
    private Optional<SharedRows.Row> lockRow(Connection c, SharedStatement.Args a) throws SQLException {
        for (int i = 0; i < ROW_TRIES; i++) {
            sql.update(c, "shared.ensureRow", a);
            Optional<SharedRows.Row> row = sql.run(c, "shared.lockRow", a, SharedRows.Row::decode);
            if (row.isPresent()) {
                return row;
            }
        }
        return Optional.empty();
    }

    private static AcquireStatement.Reply busy(long remainingMicros) {
        return new AcquireStatement.Busy(remainingMicros > 0 ? NamedSql.ofMicros(remainingMicros) : null);
    }

    /** The next token, at least {@code a.token()}: one statement, or two where the counter is a row (MariaDB). */
    private long drawToken(Connection c, SharedStatement.Args a) throws SQLException {
        if (sql.statements().containsKey("shared.readToken")) {
            sql.update(c, "shared.drawToken", a);
            return sql.run(c, "shared.readToken", a, SharedRows::single);
        }
        return sql.run(c, "shared.drawToken", a, SharedRows::single);
    }

    /**
     * The release of one of this provider's shared holds, or of an exclusive hold of a name this
     * provider also holds shared (a downgrade's writer); empty when it is neither (the caller
     * releases as usual).
     */
    public Optional<ReleaseStatement.Reply> release(Connection c, String name, String owner, Dialect.Context context)
            throws SQLException {
        SharedStatement.Args a = SharedStatement.Args.release(name, owner, context);
        if (!isShared(a.key(), owner)) {
            // The exclusive holder beside shared holders: its last hold leaves the row to them.
            return sql.update(c, "shared.convert", a) > 0 ? Optional.of(ReleaseStatement.freed()) : Optional.empty();
        }
        ReleaseStatement.Reply reply = inTransaction(c, () -> releaseHolder(c, a), r -> true);
        if (!(reply instanceof ReleaseStatement.StillHeld)) {
            forget(a.key(), owner);
        }
        return Optional.of(reply);
    }

    /**
     * Stores {@code capacity} as {@code name}'s (an operator's change) and notifies its waiters in
     * every process where the dialect can (delivered at commit); returns true.
     */
    public Boolean setCapacity(Connection c, String name, int capacity, Dialect.Context context) throws SQLException {
        SharedStatement.Args a = SharedStatement.Args.capacity(name, capacity, context);
        return inTransaction(
                c,
                () -> {
                    sql.update(c, "shared.setCapacity", a);
                    if (sql.statements().containsKey("shared.notify")) {
                        sql.run(c, "shared.notify", a, rs -> Boolean.TRUE);
                    }
                    return Boolean.TRUE;
                },
                r -> true);
    }

    private ReleaseStatement.Reply releaseHolder(Connection c, SharedStatement.Args a) throws SQLException {
        if (sql.run(c, "shared.lockRow", a, SharedRows.Row::decode).isEmpty()) {
            // No name row, so no valid shared hold (a row outlives its holders' leases): a lapsed
            // or force-released hold, whose rows the next attempt on the name clears.
            return ReleaseStatement.notHeld();
        }
        if (sql.update(c, "shared.lower", a) > 0) {
            return ReleaseStatement.stillHeld();
        }
        if (sql.update(c, "shared.delete", a) == 0) {
            sql.update(c, "shared.deleteLapsed", a);
            return ReleaseStatement.notHeld();
        }
        if (sql.update(c, "shared.free", a) == 0) {
            sql.update(c, "shared.shorten", a);
        }
        if (sql.statements().containsKey("shared.notify")) {
            sql.run(c, "shared.notify", a, rs -> Boolean.TRUE);
        }
        return ReleaseStatement.freed();
    }

    /**
     * Renews this provider's shared holds among {@code holds} (the others are left to the caller):
     * for each of {@code holds}, whether it was shared and still existed; two batches in one
     * transaction, the lock rows' leases first (the rows are locked before the holders, as every
     * other step locks them).
     */
    public boolean[] renew(Connection c, List<RenewStatement.Hold> shared) throws SQLException {
        return inTransaction(
                c,
                () -> {
                    batch(c, SharedStatement.RENEW + ".row", shared);
                    int[] counts = batch(c, SharedStatement.RENEW + ".holder", shared);
                    boolean[] out = new boolean[shared.size()];
                    for (int i = 0; i < out.length; i++) {
                        out[i] = counts[i] > 0 || counts[i] == java.sql.Statement.SUCCESS_NO_INFO;
                        if (!out[i]) {
                            forget(shared.get(i).key(), shared.get(i).owner());
                        }
                    }
                    return out;
                },
                r -> true);
    }

    /**
     * Renews {@code renewals}: the exclusive ones by {@code exclusive} as before (all of them when
     * this provider holds nothing shared), its shared holds here, in batches of {@code batchSize};
     * returns those no longer held.
     */
    public List<LockProvider.Renewal> renew(
            List<LockProvider.Renewal> renewals, int batchSize, JdbcCalls calls, RenewStatement.Batch exclusive) {
        if (holds.isEmpty()) {
            return RenewStatement.lost(renewals, batchSize, exclusive);
        }
        List<LockProvider.Renewal> sharedOnes = new ArrayList<>();
        List<LockProvider.Renewal> others = new ArrayList<>();
        for (LockProvider.Renewal r : renewals) {
            (isShared(Keys.of(r.name()), r.owner()) ? sharedOnes : others).add(r);
        }
        List<LockProvider.Renewal> lost = new ArrayList<>(RenewStatement.lost(others, batchSize, exclusive));
        lost.addAll(RenewStatement.lost(
                sharedOnes,
                batchSize,
                (name, rows) -> calls.run(name, "renewing " + rows.size() + " shared lease(s)", c -> renew(c, rows))));
        return lost;
    }

    private int[] batch(Connection c, String step, List<RenewStatement.Hold> rows) throws SQLException {
        try (PreparedStatement ps = sql.prepare(c, step, true)) {
            NamedSql statement = sql.statement(step);
            for (RenewStatement.Hold h : rows) {
                statement.bind(ps, h);
                ps.addBatch();
            }
            return ps.executeBatch();
        }
    }

    private <T> T inTransaction(Connection c, Transactions.Work<T> work, Predicate<T> keep) throws SQLException {
        sql.beginShared(c);
        return Transactions.run(c, () -> {
            T result = work.run();
            if (!keep.test(result)) {
                c.rollback();
            }
            return result;
        });
    }

    /** How long a shared claim that was told busy waits at most before it asks again. */
    public static Duration retry(@Nullable Duration remaining, Duration pollInterval) {
        return remaining == null || remaining.compareTo(pollInterval) > 0 ? pollInterval : remaining;
    }
}
