package io.lockkit.testkit;

import io.lockkit.spi.LockProvider.Subscription;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Closes a subscription on a kit thread while the calling thread subscribes anew, the two calls
 * started a chosen time apart, for {@link WakeUpsContract}'s racing-subscription test.
 *
 * <p>Why it is built this way: a provider that keeps a name's listeners in a list which the
 * name's last close removes while a subscribe adds to it (a {@code computeIfAbsent(...).add}
 * beside a {@code computeIfPresent} that drops the emptied list) loses the new listener only when
 * the subscribe looks the list up before the close drops it and adds to it after, a window of
 * some nanoseconds; two threads merely started together hit it about once in thousands of rounds.
 * So the closing thread is woken while the test prepares the round ({@link #prepare}), both
 * threads then spin until each reaches its own start on the shared clock, and the subscribe's
 * start is drawn at random across the span where the two calls overlap: from a whole subscribe
 * before the close's start to a whole close after it, as learnt from their durations so far.
 * Every ordering of the two calls' steps is then as likely as its share of that span. A round in
 * which either thread started late (the machine ran something else on its core) raced nothing;
 * {@link #races()} counts only the others.
 *
 * <p>Not thread-safe: one test thread prepares and races; the closing thread is the kit's and ends
 * with the test (it is interrupted).
 */
final class SubscriptionRace {

    /** How far ahead the threads agree on their start: time for the closing thread to read it. */
    private static final long LEAD_NANOS = 5_000;
    /** A start later than this missed its moment: the thread was not running then. */
    private static final long LATE_NANOS = 2_000;
    /** How long the closing thread spins for the next round after one before it parks. */
    private static final long IDLE_SPIN_NANOS = 1_000_000;
    /** How long the closing thread spins for a prepared round before it parks. */
    private static final long SPIN_NANOS = 10_000_000;

    private final Duration bound;
    private final AtomicLong posted = new AtomicLong();
    private final AtomicLong ready = new AtomicLong();
    private final AtomicLong closed = new AtomicLong();
    private final Thread closer;
    private volatile @Nullable Subscription toClose;
    private volatile long closeAt;
    private volatile long closeStarted;
    private volatile long closeNanos;
    private volatile @Nullable RuntimeException closeFailure;
    /** The two calls' recent durations, whose medians set the span of start offsets. */
    private final Recent subscribes = new Recent();

    private final Recent closes = new Recent();
    private long subscribeEstimate = 1_000;
    private long closeEstimate = 1_000;
    private long lastOffset;
    private int races;

    /** A race whose closing thread {@code group} starts; waits for that thread fail after {@code bound} (scaled). */
    SubscriptionRace(ContractGroup group, Duration bound) {
        this.bound = group.scaled(bound);
        this.closer = group.start("closing", this::closeRounds);
    }

    /** Wakes the closing thread for the next round, while the caller sets it up. */
    void prepare() {
        if (posted.get() == closed.get()) {
            closeAt = 0;
            posted.incrementAndGet();
            LockSupport.unpark(closer);
        }
    }

    /**
     * Closes {@code last} on the closing thread while this thread calls {@code subscribe}, its
     * start drawn at random around the close's start; returns the new subscription once the close
     * has returned too.
     *
     * @throws AssertionError when the closing thread does not take part within the bound
     */
    Subscription race(Subscription last, Supplier<Subscription> subscribe) {
        prepare();
        long round = posted.get();
        toClose = last;
        awaitRound(ready, round, "the closing thread to be ready");
        long offset = ThreadLocalRandom.current().nextLong(-subscribeEstimate, closeEstimate + 1);
        long at = System.nanoTime() + LEAD_NANOS;
        closeAt = at;
        LockSupport.unpark(closer); // in case it parked after spinning in vain
        long subscribeAt = at + offset;
        while (System.nanoTime() - subscribeAt < 0) {
            Thread.onSpinWait();
        }
        long started = System.nanoTime();
        Subscription next = subscribe.get();
        long took = System.nanoTime() - started;
        awaitRound(closed, round, "the close to return");
        RuntimeException failure = closeFailure;
        if (failure != null) {
            throw failure;
        }
        lastOffset = started - closeStarted;
        if (started - subscribeAt < LATE_NANOS && closeStarted - at < LATE_NANOS) {
            races++;
        }
        subscribeEstimate = subscribes.add(took);
        closeEstimate = closes.add(closeNanos);
        return next;
    }

    /** Rounds so far in which both calls started on time, so that they raced as drawn. */
    int races() {
        return races;
    }

    /** The latest round's offset of the subscribe's start from the close's, and the span it was drawn from. */
    String lastRound() {
        return "subscribe started " + lastOffset + " ns after the close (drawn from -" + subscribeEstimate + " to +"
                + closeEstimate + " ns)";
    }

    /** The median of the latest few durations of a call: a pause of the machine does not widen the span for long. */
    private static final class Recent {
        private final long[] samples = new long[15];
        private int count;

        /** Adds {@code nanos}; returns the median of the latest samples, at least 1. */
        long add(long nanos) {
            samples[count++ % samples.length] = nanos;
            long[] sorted = java.util.Arrays.copyOf(samples, Math.min(count, samples.length));
            java.util.Arrays.sort(sorted);
            return Math.max(1, sorted[sorted.length / 2]);
        }
    }

    /** Waits for {@code counter} to reach {@code round}: spinning at first, then parking briefly. */
    private void awaitRound(AtomicLong counter, long round, String what) {
        long deadline = System.nanoTime() + bound.toNanos();
        for (int spins = 0; counter.get() < round; spins++) {
            if (spins < 100_000) {
                Thread.onSpinWait();
            } else if (System.nanoTime() - deadline > 0 || !closer.isAlive()) {
                throw new AssertionError("waited " + bound + " for " + what);
            } else {
                LockSupport.parkNanos(10_000);
            }
        }
    }

    /** The closing thread: for each round posted, spins to the agreed moment and closes. */
    private void closeRounds() {
        long handled = 0;
        while (!Thread.currentThread().isInterrupted()) {
            long round = awaitRoundPosted(handled);
            if (round == handled) {
                LockSupport.park(this);
                continue;
            }
            ready.set(round);
            long at = awaitStart();
            if (at == 0) {
                return; // interrupted: the test ended
            }
            while (System.nanoTime() - at < 0) {
                Thread.onSpinWait();
            }
            long started = System.nanoTime();
            closeStarted = started;
            try {
                Subscription s = toClose;
                if (s != null) {
                    s.close();
                }
            } catch (RuntimeException e) {
                closeFailure = e;
            }
            closeNanos = System.nanoTime() - started;
            handled = round;
            closed.set(round);
        }
    }

    /**
     * The round posted after {@code handled}, spinning a while for it (a test's next round comes
     * soon, and waking a parked thread can take milliseconds on a busy machine); {@code handled}
     * when none came.
     */
    private long awaitRoundPosted(long handled) {
        long spinUntil = System.nanoTime() + IDLE_SPIN_NANOS;
        long round;
        while ((round = posted.get()) == handled && System.nanoTime() - spinUntil < 0) {
            Thread.onSpinWait();
        }
        return round;
    }

    /** The agreed start of the prepared round's close: spinning for it at first, then parking; 0 when interrupted. */
    private long awaitStart() {
        long spinUntil = System.nanoTime() + SPIN_NANOS;
        long at;
        while ((at = closeAt) == 0) {
            if (Thread.currentThread().isInterrupted()) {
                return 0;
            }
            if (System.nanoTime() - spinUntil < 0) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, 100_000);
            }
        }
        return at;
    }
}
