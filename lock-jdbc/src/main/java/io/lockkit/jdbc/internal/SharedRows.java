package io.lockkit.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** What the {@code shared.<step>} statements read, decoded for {@link SharedHolds}. Immutable and thread-safe. */
final class SharedRows {

    private SharedRows() {}

    /** The lock row (locked): its owner, hold count, token and lease left. */
    record Row(String owner, int holdCount, long token, long remainingMicros) {

        /** The row, or empty when there is none this transaction could lock. */
        static Optional<Row> decode(ResultSet rs) throws SQLException {
            if (!rs.next()) {
                return Optional.empty();
            }
            return Optional.of(new Row(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getLong(4)));
        }
    }

    /** A shared holder. */
    record Holder(String owner, int weight, int holdCount, long token, long remainingMicros) {
        boolean live() {
            return remainingMicros > 0;
        }
    }

    /** A live queued waiter: what it waits for (0: the whole name, k: k units, fairly) and its arrival. */
    record Waiter(String owner, int weight, long arrival) {

        /** Whether this place is before {@code other}'s: arrival order, then owner. */
        boolean before(Waiter other) {
            return arrival != other.arrival ? arrival < other.arrival : owner.compareTo(other.owner) < 0;
        }
    }

    /**
     * The rows of {@code shared.state} ({@link SharedStatement#STATE_COLUMNS}): the name's shared
     * holders (lapsed ones too), its stored capacity (null: none) and its live queued waiters.
     */
    record State(List<Holder> holders, @Nullable Integer capacity, List<Waiter> waiters) {

        static State decode(ResultSet rs) throws SQLException {
            List<Holder> holders = new ArrayList<>();
            Integer capacity = null;
            List<Waiter> waiters = new ArrayList<>();
            while (rs.next()) {
                String kind = rs.getString(1);
                switch (kind.trim()) {
                    case "holder" ->
                        holders.add(
                                new Holder(rs.getString(2), rs.getInt(3), rs.getInt(4), rs.getLong(5), rs.getLong(6)));
                    case "capacity" -> capacity = rs.getInt(3);
                    case "waiter" -> waiters.add(new Waiter(rs.getString(2), rs.getInt(3), rs.getLong(5)));
                    default -> throw new SQLException("shared.state answered an unknown kind of row: " + kind);
                }
            }
            return new State(List.copyOf(holders), capacity, List.copyOf(waiters));
        }

        boolean anyHolder() {
            return !holders.isEmpty();
        }

        boolean anyLapsed() {
            return holders.stream().anyMatch(h -> !h.live());
        }

        State withoutHolders() {
            return new State(List.of(), capacity, waiters);
        }

        @Nullable
        Holder liveHolder(String owner) {
            for (Holder h : holders) {
                if (h.live() && h.owner().equals(owner)) {
                    return h;
                }
            }
            return null;
        }

        int usedWeight() {
            return holders.stream()
                    .filter(Holder::live)
                    .mapToInt(Holder::weight)
                    .sum();
        }

        /** The soonest end of a live holder's lease (µs), 0 when none holds. */
        long soonestEnd() {
            return holders.stream()
                    .filter(Holder::live)
                    .mapToLong(Holder::remainingMicros)
                    .min()
                    .orElse(0);
        }

        /**
         * Whether a live waiter of another owner keeps {@code owner}'s new shared claim out: an
         * exclusive one (writer preference), or, for a fair claim, any whose place is before the
         * owner's (every one when the owner has none).
         */
        boolean waiterBlocks(String owner, boolean fair) {
            Waiter mine = waiter(owner);
            for (Waiter w : waiters) {
                if (w.owner().equals(owner)) {
                    continue;
                }
                if (fair ? mine == null || w.before(mine) : w.weight() == 0) {
                    return true;
                }
            }
            return false;
        }

        /** {@code owner}'s live place in the queue, or null. */
        @Nullable
        Waiter waiter(String owner) {
            for (Waiter w : waiters) {
                if (w.owner().equals(owner)) {
                    return w;
                }
            }
            return null;
        }
    }

    /** The one long of a one-row answer. */
    static long single(ResultSet rs) throws SQLException {
        if (!rs.next()) {
            throw new SQLException("a token draw answered no row");
        }
        return rs.getLong(1);
    }
}
