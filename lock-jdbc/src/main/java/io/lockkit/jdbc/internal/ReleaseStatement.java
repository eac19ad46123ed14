package io.lockkit.jdbc.internal;

import io.lockkit.spi.Release;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The {@code release} statement of every dialect: its arguments by name and its reply decoded. Lowers
 * the owner's hold count; at zero frees the lock, or hands it to the next live waiter (outright to a
 * waiter of the releasing client). The reply names its outcome in words ({@link #OUTCOMES}), never a
 * numeric code. {@code SqlContractTest} holds the dialects' SQL to these names. Values are immutable
 * and thread-safe.
 */
public final class ReleaseStatement {

    /** The statement's name in the statements files. */
    public static final String NAME = "release";

    /** The reply's columns, in order, where one statement answers (the routine's OUT names). */
    public static final List<String> COLUMNS = List.of("o_outcome", "o_grantee", "o_token", "o_wait_id");

    /** The outcome words of the {@code o_outcome} column, one per {@link Reply} kind. */
    public static final List<String> OUTCOMES =
            List.of("not_held", "lapsed", "still_held", "freed", "handed_to", "granted");

    private static final Reply NOT_HELD = new NotHeld();
    private static final Reply LAPSED = new Lapsed();
    private static final Reply STILL_HELD = new StillHeld();
    private static final Reply FREED = new Freed();

    private ReleaseStatement() {}

    /**
     * The statement's parameters.
     *
     * @param key the lock's row key
     * @param owner the releasing owner id
     * @param client the releasing client's owner prefix ({@code <client id>:}), whose waiters may be
     *     granted the lock outright; null when the owner id has none
     * @param maxStreak how many hand-overs in a row may go to that client ahead of an older waiter
     * @param claim how long a waiter of another client has to claim a hand-over
     * @param channel the notification channel (PostgreSQL)
     * @param origin the releasing provider's id in its notifications (PostgreSQL)
     * @param lockTimeoutMs how long the statement may wait for a row lock on the server
     */
    public record Args(
            String key,
            String owner,
            @Nullable String client,
            int maxStreak,
            Duration claim,
            String channel,
            String origin,
            int lockTimeoutMs) {

        /**
         * The arguments of a release by {@code owner} of the lock {@code name}; at most
         * {@code maxStreak} hand-overs in a row within the releasing client.
         */
        public static Args of(String name, String owner, int maxStreak, Dialect.Context context) {
            int colon = owner.indexOf(':');
            return new Args(
                    Keys.of(name),
                    owner,
                    colon <= 0 ? null : owner.substring(0, colon + 1),
                    maxStreak,
                    context.claim(),
                    context.channel(),
                    context.origin(),
                    context.lockTimeoutMs());
        }

        /** The parameter names, in declaration order. */
        public static List<String> names() {
            return NamedSql.components(Args.class);
        }
    }

    /** What the statement answered. */
    public sealed interface Reply permits NotHeld, Lapsed, StillHeld, Freed, HandedTo, Granted {}

    /** The owner held nothing. */
    public record NotHeld() implements Reply {}

    /** The owner's lease had lapsed; its row is gone. */
    public record Lapsed() implements Reply {}

    /** A reentrant hold remains. */
    public record StillHeld() implements Reply {}

    /** The lock is free now. */
    public record Freed() implements Reply {}

    /** The lock went to {@code grantee}, a waiter of another client, which must claim it. */
    public record HandedTo(String grantee) implements Reply {}

    /** The lock went outright to {@code grantee}'s wait {@code waitId}, a waiter of the releasing client, with {@code token}. */
    public record Granted(String grantee, long token, long waitId) implements Reply {}

    /** Reads the one row of {@link #COLUMNS}. */
    public static Reply decode(ResultSet rs) throws SQLException {
        if (!rs.next()) {
            return NOT_HELD;
        }
        return reply(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4));
    }

    /** The reply for an outcome word (see {@link #OUTCOMES}) and the grant's details where it has them. */
    public static Reply reply(String outcome, @Nullable String grantee, long token, long waitId) {
        return switch (outcome) {
            case "not_held" -> NOT_HELD;
            case "lapsed" -> LAPSED;
            case "still_held" -> STILL_HELD;
            case "freed" -> FREED;
            case "handed_to" -> new HandedTo(Objects.requireNonNull(grantee, "grantee of a hand-over"));
            case "granted" -> new Granted(Objects.requireNonNull(grantee, "grantee of a grant"), token, waitId);
            default -> throw new IllegalStateException("release answered an unknown outcome: " + outcome);
        };
    }

    // The replies without details, for dialects that decide in Java.

    /** The lock is free now. */
    public static Reply freed() {
        return FREED;
    }

    /** The owner held nothing. */
    public static Reply notHeld() {
        return NOT_HELD;
    }

    /** The owner's lease had lapsed. */
    public static Reply lapsed() {
        return LAPSED;
    }

    /** A reentrant hold remains. */
    public static Reply stillHeld() {
        return STILL_HELD;
    }

    /** The SPI's answer for a reply. */
    public static Release toRelease(Reply reply) {
        if (reply instanceof Granted g) {
            return Release.grantedTo(g.grantee(), g.token(), g.waitId());
        }
        if (reply instanceof HandedTo h) {
            return new Release(Release.Outcome.RELEASED, h.grantee());
        }
        if (reply instanceof StillHeld) {
            return Release.STILL_HELD;
        }
        return reply instanceof Freed ? Release.RELEASED : Release.NOT_HELD;
    }
}
