package io.lockkit.jedis.internal;

import java.time.Duration;
import java.util.List;

/**
 * The Java side of {@code shared.lua}, the attempt of a shared claim (a read lock, a semaphore's
 * permits): its keys and arguments by name, and its reply decoded. {@code ScriptContractTest}
 * fails the build when the two sides disagree on them. Values are immutable and thread-safe.
 */
public final class SharedScript {

    /** The script's {@code KEYS}, in order. */
    public static final List<String> KEYS = List.of("lockKey", "queueKey", "deadlinesKey", "capacityKey");

    private static final Arg.Remembered<Duration> LEASES = new Arg.Remembered<>(AcquireScript::millisUpArg);
    private static final Arg.Remembered<Duration> WAITS = new Arg.Remembered<>(AcquireScript::millisUpArg);
    private static final Arg.Remembered<Duration> SLACKS = new Arg.Remembered<>(d -> Arg.of(d.toMillis()));
    private static final Arg NONE = Arg.of("");

    private SharedScript() {}

    /**
     * The script's {@code ARGV}, in order.
     *
     * @param owner the owner id
     * @param lease the lease to set
     * @param maxWait how long the owner will wait if busy (zero: it is not waiting)
     * @param queueSlack how long a queue entry outlives the owner's next retry
     * @param waitId the wait the attempt belongs to, 0 for none
     * @param weight the units the hold takes
     * @param capacity the claim's capacity, 0 unbounded; a capacity stored with the name governs
     * @param fair whether the claim queues behind every earlier live waiter
     * @param beside the exclusive holder the claim may stand beside, {@code ""} for none
     */
    public record Args(
            String owner,
            Duration lease,
            Duration maxWait,
            Duration queueSlack,
            long waitId,
            int weight,
            int capacity,
            boolean fair,
            String beside) {

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
                    Arg.of(waitId),
                    Arg.of(weight),
                    Arg.of(capacity),
                    Arg.of(fair),
                    beside.isEmpty() ? NONE : Arg.of(beside));
        }
    }

    /**
     * Reads the script's reply as {@code acquire.lua}'s, or refuses a claim of more units than the
     * stored capacity.
     *
     * @throws IllegalArgumentException when the script answered {@code {-2, capacity}}
     */
    public static AcquireScript.Reply decode(Object reply, int weight) {
        if (reply instanceof List<?> refused) {
            throw new IllegalArgumentException(
                    "permits must not exceed the capacity " + refused.get(1) + " stored with the name, was " + weight);
        }
        return AcquireScript.decode(reply);
    }
}
