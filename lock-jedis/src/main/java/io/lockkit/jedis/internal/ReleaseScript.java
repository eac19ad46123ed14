package io.lockkit.jedis.internal;

import io.lockkit.spi.Release;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The Java side of {@code release.lua}: its keys and arguments by name, and its reply decoded.
 * The names are those of the script's header and locals; {@code ScriptContractTest} fails the
 * build when the two sides disagree on them. Values are immutable and thread-safe.
 */
public final class ReleaseScript {

    /** The script's {@code KEYS}, in order. */
    public static final List<String> KEYS = List.of("lockKey", "queueKey", "deadlinesKey");

    private static final Arg.Remembered<Duration> CLAIM_TIMEOUTS = new Arg.Remembered<>(d -> Arg.of(d.toMillis()));
    private static final Arg.Remembered<Duration> RETENTIONS = new Arg.Remembered<>(d -> Arg.of(d.toMillis()));
    private static final Arg.Remembered<String> PUBLISH_COMMANDS = new Arg.Remembered<>(Arg::of);

    private ReleaseScript() {}

    /** What the call does to the owner's hold. */
    public enum Mode {
        /** Lowers the owner's hold count by one; at zero the lock is freed or handed over. */
        RELEASE,
        /** The owner stopped waiting: leave the queue, decline a hand-over it has not claimed. */
        ABANDON,
        /** Frees the lock whoever holds it. */
        FORCE;

        @SuppressWarnings("ImmutableEnumChecker") // an Arg is immutable
        private final Arg wire = Arg.of(name().toLowerCase(Locale.ROOT));

        Arg wire() {
            return wire;
        }
    }

    /**
     * The script's {@code ARGV}, in order.
     *
     * @param owner the owner id ({@code ""} for {@link Mode#FORCE})
     * @param mode what to do
     * @param claimTimeout how long a waiter has to claim a hand-over
     * @param fenceRetention how long a free lock's hash keeps its last token
     * @param channel the lock's wake-up channel
     * @param publishCommand {@code PUBLISH} or {@code SPUBLISH}
     * @param localPrefix the releasing client's owner prefix ({@code <client id>:}), whose waiters
     *        may be granted the lock outright; {@code ""} when the caller will not wake a waiter
     *        itself, so that every hand-over is published
     * @param localHandOffs how many hand-overs in a row may go to that client ahead of older waiters
     * @param nonce the same for a retry of this call, so that a retry never lowers a count twice
     * @param waitId {@link Mode#ABANDON}: the wait that ended, 0 for none
     */
    public record Args(
            String owner,
            Mode mode,
            Duration claimTimeout,
            Duration fenceRetention,
            Arg channel,
            String publishCommand,
            Arg localPrefix,
            int localHandOffs,
            Arg nonce,
            long waitId) {

        /** The names of the arguments, in {@code ARGV} order. */
        public static List<String> names() {
            return Contracts.names(Args.class);
        }

        /** The arguments as the script takes them. */
        public List<Arg> encode() {
            return List.of(
                    Arg.of(owner),
                    mode.wire(),
                    CLAIM_TIMEOUTS.of(claimTimeout),
                    RETENTIONS.of(fenceRetention),
                    channel,
                    PUBLISH_COMMANDS.of(publishCommand),
                    localPrefix,
                    Arg.of(localHandOffs),
                    nonce,
                    Arg.of(waitId));
        }
    }

    /** What the script answered. */
    public sealed interface Reply permits NotHeld, StillHeld, Freed, HandedTo, Granted {}

    /** The owner held nothing ({@link Mode#FORCE}: the lock was free). */
    public record NotHeld() implements Reply {}

    /** A reentrant hold remains. */
    public record StillHeld() implements Reply {}

    /** The lock is free now. */
    public record Freed() implements Reply {}

    /** The lock went to {@code grantee}, which must claim it (told by a published message unless of the releasing client). */
    public record HandedTo(String grantee) implements Reply {}

    /** The lock went outright to {@code grantee}'s wait {@code waitId}, a waiter of the releasing client, with {@code token}. */
    public record Granted(String grantee, long token, long waitId) implements Reply {}

    /** The SPI's answer for a release's reply. */
    public static Release toRelease(Reply reply) {
        if (reply instanceof Granted g) {
            return Release.grantedTo(g.grantee(), g.token(), g.waitId());
        }
        if (reply instanceof HandedTo h) {
            return new Release(Release.Outcome.RELEASED, h.grantee());
        }
        if (reply instanceof NotHeld) {
            return Release.NOT_HELD;
        }
        return reply instanceof StillHeld ? Release.STILL_HELD : Release.RELEASED;
    }

    private static final Reply NOT_HELD = new NotHeld();
    private static final Reply STILL_HELD = new StillHeld();
    private static final Reply FREED = new Freed();

    /**
     * Reads the script's reply: -1 not held, 0 still held, 1 free, the grantee's owner id (a bulk
     * string), or {@code {grantee, token, wait id}}.
     */
    public static Reply decode(Object reply) {
        if (reply instanceof List<?> grant) {
            return new Granted(text(grant.get(0)), AcquireScript.token(grant.get(1)), (Long) grant.get(2));
        }
        if (!(reply instanceof Long outcome)) {
            return new HandedTo(text(reply));
        }
        if (outcome < 0) {
            return NOT_HELD;
        }
        return outcome == 0 ? STILL_HELD : FREED;
    }

    private static String text(Object reply) {
        return reply instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(reply);
    }
}
