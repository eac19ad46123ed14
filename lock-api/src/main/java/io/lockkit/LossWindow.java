package io.lockkit;

import java.util.concurrent.TimeUnit;

/**
 * Counts the losses of one factory over the last minute, for {@link HealthReport}. Thread-safe.
 *
 * <p>Design: sixty one-second buckets in a ring, each tagged with the second it counts, so memory
 * is constant however many holds are lost at once (an outage loses them all together) and a count
 * is sixty additions. Losses are rare, so a monitor is cheap enough; nothing here runs on the lock
 * paths that do not lose a hold.
 */
final class LossWindow {

    private static final int SECONDS = 60;
    private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

    private final long[] second = new long[SECONDS];
    private final int[] count = new int[SECONDS];

    /** Counts one loss at {@code nowNanos} (the factory's ticker). */
    synchronized void record(long nowNanos) {
        long s = Math.floorDiv(nowNanos, NANOS_PER_SECOND);
        int i = (int) Math.floorMod(s, (long) SECONDS);
        if (second[i] != s || count[i] == 0) {
            second[i] = s;
            count[i] = 0;
        }
        if (count[i] < Integer.MAX_VALUE) {
            count[i]++;
        }
    }

    /** Losses in the sixty seconds up to {@code nowNanos}, the current second included. */
    synchronized int lastMinute(long nowNanos) {
        long now = Math.floorDiv(nowNanos, NANOS_PER_SECOND);
        long sum = 0;
        for (int i = 0; i < SECONDS; i++) {
            long age = now - second[i];
            if (count[i] > 0 && age >= 0 && age < SECONDS) {
                sum += count[i];
            }
        }
        return (int) Math.min(sum, Integer.MAX_VALUE);
    }
}
