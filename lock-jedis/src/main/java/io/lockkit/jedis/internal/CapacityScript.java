package io.lockkit.jedis.internal;

import java.util.List;

/**
 * The Java side of {@code capacity.lua}, an operator's change of a name's stored capacity: its
 * keys and arguments by name. {@code ScriptContractTest} fails the build when the two sides
 * disagree. Values are immutable and thread-safe.
 */
public final class CapacityScript {

    /** The script's {@code KEYS}, in order. */
    public static final List<String> KEYS = List.of("lockKey", "capacityKey");

    private CapacityScript() {}

    /** The keys the script takes for the lock whose keys start with {@code base}. */
    public static List<Arg> keys(String base) {
        List<Arg> shared = Keys.sharedArgs(base);
        return List.of(shared.get(0), shared.get(3));
    }

    /**
     * The script's {@code ARGV}, in order.
     *
     * @param capacity the new capacity, at least 1
     * @param channel the lock's wake-up channel
     * @param publishCommand {@code PUBLISH} or {@code SPUBLISH}
     */
    public record Args(int capacity, String channel, String publishCommand) {

        /** The names of the arguments, in {@code ARGV} order. */
        public static List<String> names() {
            return Contracts.names(Args.class);
        }

        /** The arguments as the script takes them. */
        public List<Arg> encode() {
            return List.of(Arg.of(capacity), Arg.of(channel), Arg.of(publishCommand));
        }
    }
}
