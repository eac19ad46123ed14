package io.lockkit.jdbc.internal;

import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.List;

/**
 * The {@code shared.<step>} statements of every dialect: the steps of a shared claim's attempt, of a
 * shared holder's release, and of an exclusive holder's release beside shared holders, all bound from
 * one argument record; and the {@code renewShared.<step>} statements, bound from
 * {@link RenewStatement.Hold}. {@code SqlContractTest} holds the dialects' SQL to these names.
 * Values are immutable and thread-safe.
 */
public final class SharedStatement {

    /** The operation's name in the statements files (its steps are {@code shared.<step>}). */
    public static final String NAME = "shared";

    /** The shared holders' renewal in the statements files (steps {@code renewShared.<step>}). */
    public static final String RENEW = "renewShared";

    /**
     * The owner of a lock row whose holders are shared ones: the row is the name's serialization
     * point and its lease the longest of theirs. Never an owner id (those have a colon and no space).
     */
    public static final String HOLDERS = "shared holders";

    /** The columns of {@code shared.state}: what a row is, whose, its weight, count, token and time left. */
    public static final List<String> STATE_COLUMNS =
            List.of("kind", "owner", "weight", "hold_count", "token", "remaining_us");

    private SharedStatement() {}

    /**
     * The steps' parameters.
     *
     * @param key the lock's row key
     * @param name the lock name, kept for operators
     * @param owner the owner id
     * @param lease the lease to set (a reentrant hold never gets a shorter one)
     * @param weight the units the hold takes
     * @param capacity the capacity the claim names (0: unbounded), stored when the name has none
     * @param token the token drawn for a new hold, or the floor of the next one (the row's + 1)
     * @param channel the notification channel (PostgreSQL)
     */
    public record Args(
            String key,
            String name,
            String owner,
            Duration lease,
            int weight,
            int capacity,
            long token,
            String channel) {

        /** The arguments of one shared attempt. */
        public static Args of(LockProvider.LockRequest r, Dialect.Context context) {
            Claim claim = r.claim();
            return new Args(
                    Keys.of(r.name()),
                    r.name(),
                    r.owner(),
                    r.lease(),
                    claim.weight(),
                    claim.capacity(),
                    0,
                    context.channel());
        }

        /** The arguments of a release by {@code owner} of {@code name}. */
        public static Args release(String name, String owner, Dialect.Context context) {
            return new Args(Keys.of(name), name, owner, Duration.ZERO, 0, 0, 0, context.channel());
        }

        /** The arguments of an operator's change of {@code name}'s capacity. */
        public static Args capacity(String name, int capacity, Dialect.Context context) {
            return new Args(Keys.of(name), name, "", Duration.ZERO, 0, capacity, 0, context.channel());
        }

        /** These arguments with {@code token}. */
        public Args withToken(long token) {
            return new Args(key, name, owner, lease, weight, capacity, token, channel);
        }

        /** The parameter names, in declaration order. */
        public static List<String> names() {
            return NamedSql.components(Args.class);
        }
    }
}
