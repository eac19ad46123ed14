package io.lockkit.jedis.internal;

import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;

/** Where a provider's waiters hear of releases: classic pub/sub, or sharded pub/sub per cluster shard. */
public interface WakeUps {

    /** Delivers messages of {@code channel} to {@code listener}; returns once Redis confirmed the channel. */
    Subscription subscribe(String channel, String lockName, WakeUpListener listener);

    /**
     * Opens the wake-up connection and its thread ahead of the first subscription, without
     * waiting for them: a provider's threads are then fixed before anyone waits. Optional.
     */
    default void start() {
    }

    /** Number of lock channels with listeners. */
    int channels();

    void close();

    /** Hands one release message (the grantee's owner id, or empty when the lock is free) to a channel's listeners. */
    static void deliver(java.util.List<WakeUpListener> listeners, String message) {
        if (listeners != null) {
            String grantee = message.isEmpty() ? null : message;
            for (WakeUpListener l : listeners) {
                l.released(grantee);
            }
        }
    }
}
