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

    /**
     * Hands one release message to a channel's listeners: empty when the lock is free, the
     * grantee's owner id for a hand-over to claim, or {@code "<grantee> <wait id> <token> <lease
     * ms>"} for a grant outright (owner ids contain no spaces; see release.lua). A message of
     * another shape (a newer version's) is read as a missed notification: every waiter looks again.
     */
    static void deliver(WakeUpListeners listeners, String channel, String message) {
        if (message.isEmpty()) {
            listeners.released(channel, null);
            return;
        }
        int first = message.indexOf(' ');
        if (first < 0) {
            listeners.released(channel, message);
            return;
        }
        int second = message.indexOf(' ', first + 1);
        int third = second < 0 ? -1 : message.indexOf(' ', second + 1);
        try {
            if (third < 0 || message.indexOf(' ', third + 1) >= 0) {
                throw new NumberFormatException("not four fields");
            }
            long waitId = Long.parseLong(message, first + 1, second, 10);
            long token = Long.parseLong(message, second + 1, third, 10);
            long lease = Long.parseLong(message, third + 1, message.length(), 10);
            if (waitId <= 0 || token <= 0 || lease <= 0) {
                throw new NumberFormatException("not positive");
            }
            listeners.granted(channel, message.substring(0, first), waitId, token, java.time.Duration.ofMillis(lease));
        } catch (NumberFormatException e) {
            listeners.missed(channel);
        }
    }
}
