package io.lockkit.jedis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Java side of {@code renew.lua}, which renews many holds in one call: per hold one key and
 * the arguments of {@link Hold}, and per hold a reply. {@code ScriptContractTest} fails the build
 * when the two sides disagree. Values are immutable and thread-safe.
 */
public final class RenewScript {

    /** The script's {@code KEYS} per hold, in order. */
    public static final List<String> KEYS_PER_HOLD = List.of("lockKey");

    private RenewScript() {}

    /**
     * The script's {@code ARGV} per hold, in order.
     *
     * @param owner the owner that should still hold the lock
     * @param lease the lease to set from now
     */
    public record Hold(String owner, Duration lease) {

        /** The names of the arguments of one hold, in {@code ARGV} order. */
        public static List<String> names() {
            return Contracts.names(Hold.class);
        }

        void encode(List<String> args) {
            args.add(owner);
            args.add(Long.toString(AcquireScript.millisUp(lease))); // rounded up, as an acquisition's lease
        }
    }

    /** The arguments of the holds, one after another, as the script takes them. */
    public static List<String> encode(List<Hold> holds) {
        List<String> args = new ArrayList<>(holds.size() * 2);
        for (Hold h : holds) {
            h.encode(args);
        }
        return args;
    }

    /** Reads the script's reply: per hold, whether it was renewed (else its owner no longer holds the lock). */
    public static List<Boolean> decode(Object reply) {
        List<?> replies = (List<?>) reply;
        List<Boolean> renewed = new ArrayList<>(replies.size());
        for (Object r : replies) {
            renewed.add(Long.valueOf(1).equals(r));
        }
        return renewed;
    }
}
