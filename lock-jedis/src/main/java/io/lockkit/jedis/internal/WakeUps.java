package io.lockkit.jedis.internal;

import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;

/** Where a provider's waiters hear of releases: classic pub/sub, or sharded pub/sub per cluster shard. */
public interface WakeUps {

    /** Delivers messages of {@code channel} to {@code listener}; returns once Redis confirmed the channel. */
    Subscription subscribe(String channel, String lockName, WakeUpListener listener);

    /** Number of lock channels with listeners. */
    int channels();

    void close();
}
