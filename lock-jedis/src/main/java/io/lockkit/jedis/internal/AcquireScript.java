package io.lockkit.jedis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * The Java side of {@code acquire.lua}: its keys and arguments by name, and its reply decoded.
 * The names are those of the script's header and locals; {@code ScriptContractTest} fails the
 * build when the two sides disagree on them. Values are immutable and thread-safe.
 */
public final class AcquireScript {

    /** The script's {@code KEYS}, in order. */
    public static final List<String> KEYS = List.of("lockKey", "queueKey", "deadlinesKey");

    private static final Arg.Remembered<Duration> LEASES = new Arg.Remembered<>(AcquireScript::millisUpArg);
    private static final Arg.Remembered<Duration> WAITS = new Arg.Remembered<>(AcquireScript::millisUpArg);
    private static final Arg.Remembered<Duration> SLACKS = new Arg.Remembered<>(d -> Arg.of(d.toMillis()));

    private AcquireScript() {}

    /**
     * The script's {@code ARGV}, in order.
     *
     * @param owner the owner id
     * @param lease the lease to set
     * @param maxWait how long the owner will wait if the lock is busy (zero: it is not queued)
     * @param queueSlack how long a queue entry outlives the owner's next retry
     * @param mayBeQueued whether the owner may have a queue entry from an earlier call (else the
     *        uncontended path runs no queue command at all)
     * @param waitId the wait the attempt belongs to, 0 for none
     * @param fair whether a free lock is taken only with no live waiter queued ahead (a fair claim)
     */
    public record Args(
            String owner,
            Duration lease,
            Duration maxWait,
            Duration queueSlack,
            boolean mayBeQueued,
            long waitId,
            boolean fair) {

        /** The names of the arguments, in {@code ARGV} order. */
        public static List<String> names() {
            return Contracts.names(Args.class);
        }

        /** The arguments as the script takes them. */
        public List<Arg> encode() {
            return List.of(
                    Arg.of(owner),
                    LEASES.of(lease),
                    WAITS.of(maxWait),
                    SLACKS.of(queueSlack),
                    Arg.of(mayBeQueued),
                    Arg.of(waitId),
                    Arg.of(fair));
        }
    }

    /**
     * One acquisition attempt as a script call: {@code acquire.lua} for an exclusive claim,
     * {@code shared.lua} for a shared one, with the keys, arguments and reply decoder of that script.
     *
     * @param owner the owner the attempt is for (whose hold an undo gives back)
     */
    public record Call(Scripts script, List<Arg> keys, List<Arg> args, String owner, Function<Object, Reply> decoder) {

        /** Runs the call in one round trip. */
        public Reply run(RedisCalls calls) {
            return decoder.apply(calls.script(script, keys, args));
        }
    }

    /**
     * {@code d} in whole milliseconds, rounded up, as the scripts take leases and waits: a lease
     * Redis keeps is never shorter than the one the client counts from when it sent the request
     * (cut to whole milliseconds, a lease of 1.999 ms lasted 1 ms on Redis while the client
     * called the hold valid for 1.999 ms).
     */
    static long millisUp(Duration d) {
        long millis = d.toMillis();
        return d.equals(Duration.ofMillis(millis)) ? millis : millis + 1;
    }

    /** {@link #millisUp} as a script argument. */
    static Arg millisUpArg(Duration d) {
        return Arg.of(millisUp(d));
    }

    /** What the script answered: the lock is the owner's now, or busy. */
    public sealed interface Reply permits Acquired, Busy {}

    /** The owner holds the lock, with fencing token {@code token}. */
    public record Acquired(long token) implements Reply {}

    /** Someone else holds the lock, for {@code remainingLease} more at most. */
    public record Busy(Duration remainingLease) implements Reply {}

    /** Reads the script's reply: a token (> 0), or -1 minus the ms left on the holder's lease. */
    public static Reply decode(Object reply) {
        if (!(reply instanceof Long value)) {
            return new Acquired(token(reply));
        }
        return value > 0 ? new Acquired(value) : new Busy(Duration.ofMillis(-1 - value));
    }

    /**
     * A fencing token as the scripts answer it: an integer reply below 2^53, else a bulk string of
     * its decimal digits (Lua's numbers are doubles: past 2^53 the scripts count in digits, and a
     * number would reach the client rounded).
     *
     * @throws NumberFormatException when the reply is no token of at most 2^63 - 1
     */
    public static long token(Object reply) {
        if (reply instanceof Long value) {
            return value;
        }
        return Long.parseLong(
                reply instanceof byte[] digits ? new String(digits, StandardCharsets.US_ASCII) : String.valueOf(reply));
    }
}
