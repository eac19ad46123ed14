package io.lockkit.jedis;

/**
 * What tests outside this package read of a {@link JedisLockProvider}'s wake-ups, which its public
 * API does not offer (it exists for tests only).
 */
public final class ProviderProbe {

    private ProviderProbe() {}

    /** Number of lock channels {@code provider} is subscribed to. */
    public static int subscribedChannels(JedisLockProvider provider) {
        return provider.subscribedChannels();
    }

    /** Batches (round trips) the single-node batcher of {@code provider} wrote so far; -1 without one. */
    public static long batches(JedisLockProvider provider) {
        return provider.batches();
    }
}
