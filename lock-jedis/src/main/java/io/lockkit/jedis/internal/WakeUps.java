package io.lockkit.jedis.internal;

import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.support.WakeUpListeners;

/** Where a provider's waiters hear of releases: classic pub/sub, or sharded pub/sub per cluster shard. */
public interface WakeUps {

    /**
     * Delivers messages of {@code channel} to {@code listener}; returns once Redis confirmed the
     * channel, or earlier (a slow confirmation, an interrupt) with {@code listener} told to look
     * again once it is confirmed. An interrupt never fails it and stays set.
     */
    Subscription subscribe(String channel, String lockName, WakeUpListener listener);

    /**
     * Opens the wake-up connection and its thread ahead of the first subscription, without
     * waiting for them: a provider's threads are then fixed before anyone waits. Optional.
     */
    default void start() {}

    /** Number of lock channels with listeners. */
    int channels();

    void close();

    /**
     * Waits up to {@code timeout} for Redis to confirm a channel. A slow confirmation (a cold start,
     * a reconnect in progress) or an interrupt ends the wait early without failing it: the waiter
     * goes on waiting, bounded by its retry hint, and {@code listener} is told to look again once
     * the channel is confirmed, so a release published in between is not lost. An interrupt stays
     * set, for the caller's wait to act on (an interruptible wait ends, {@code lock()} keeps
     * waiting); it never reads as a failure of Redis.
     *
     * @throws java.util.concurrent.ExecutionException when the subscription failed
     */
    static void awaitConfirmation(
            java.util.concurrent.CompletableFuture<Void> confirmed, java.time.Duration timeout, WakeUpListener listener)
            throws java.util.concurrent.ExecutionException {
        try {
            confirmed.get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            var unused = confirmed.thenRun(listener::missedNotifications);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            var unused = confirmed.thenRun(listener::missedNotifications);
        }
    }

    /** Hands one release message (the grantee's owner id, or empty when the lock is free) to a channel's listeners. */
    static void deliver(WakeUpListeners listeners, String channel, String message) {
        listeners.released(channel, message.isEmpty() ? null : message);
    }
}
