package io.lockkit;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Renewal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Renews watchdog holds and notices lapsed leases, for every hold of one factory, on one
 * scheduler.
 *
 * <p>Design: there is a single pending "tick", scheduled for the earliest moment any hold needs
 * attention. A tick renews, in one {@link LockProvider#renew} call, every watchdog hold whose
 * renewal falls due within a short coalescing window (so holds taken close together share a
 * round trip), and reports as lost every hold whose client-side deadline has passed. A failed
 * renewal is retried soon, but never past the deadline: a holder that cannot reach the backend
 * learns of the loss when its lease runs out on this client's clock, which is no later than the
 * backend's. Releasing a hold only removes it from the set; a renewal already in flight for it
 * renews nothing (the backend no longer has that owner) and its answer is ignored, so there is
 * no start/cancel race.
 *
 * <p>The renewal round trip is handed to the scheduler as a task of its own rather than made
 * inside the tick: against a stalled backend it blocks for up to the provider's timeout (twice,
 * with the provider's retry), and deadline checks must not queue behind it, or a holder would
 * hear of its loss that much after its deadline. The factory's own scheduler has two threads for
 * this; one renewal batch is in flight at a time, so at most one thread is ever blocked on I/O.
 */
final class LeaseWatchdog {

    private static final System.Logger LOG = System.getLogger(LeaseWatchdog.class.getName());
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LockProvider provider;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    private final BiConsumer<Hold, String> onLost;
    private final Events events;
    private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
    /** Holds whose renewal is in flight: not renewed again, and only their deadline is scheduled. */
    private final Set<Hold> renewing = ConcurrentHashMap.newKeySet();
    /**
     * Renewal calls failed in a row, and when the first of them was sent: an outage logs one
     * warning with its cause, then DEBUG lines, then one line when a renewal succeeds again.
     */
    private final AtomicInteger failedInARow = new AtomicInteger();

    private volatile long failingSince;

    private final ReentrantLock lock = new ReentrantLock();
    private @Nullable ScheduledFuture<?> tick;
    private long tickAt;
    /** When the running tick started (valid while {@link #ticking}), for {@link #lateNanos}. */
    private long tickStartedAt;

    private boolean ticking;
    private boolean stopped;

    LeaseWatchdog(
            LockProvider provider, Ticker ticker, ScheduledExecutorService scheduler, BiConsumer<Hold, String> onLost) {
        this(provider, ticker, scheduler, onLost, new Events(ticker, List.of()));
    }

    LeaseWatchdog(
            LockProvider provider,
            Ticker ticker,
            ScheduledExecutorService scheduler,
            BiConsumer<Hold, String> onLost,
            Events events) {
        this.provider = provider;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.onLost = onLost;
        this.events = events;
    }

    void watch(Hold hold) {
        holds.add(hold);
        scheduleBy(hold.nextDueNanos());
    }

    /** The hold's deadline or renewal time changed. */
    void rescheduled(Hold hold) {
        if (holds.contains(hold)) {
            scheduleBy(hold.nextDueNanos());
        }
    }

    void unwatch(Hold hold) {
        holds.remove(hold);
    }

    int watched() {
        return holds.size();
    }

    void stop() {
        lock.lock();
        try {
            stopped = true;
            if (tick != null) {
                tick.cancel(false);
            }
        } finally {
            lock.unlock();
        }
        holds.clear();
    }

    private void scheduleBy(long dueNanos) {
        lock.lock();
        try {
            if (stopped) {
                return;
            }
            if (tick == null || dueNanos - tickAt < 0) {
                if (tick != null) {
                    tick.cancel(false);
                }
                tickAt = dueNanos;
                long delay = Math.max(0, dueNanos - ticker.nanoTime());
                tick = scheduler.schedule(this::tick, delay, TimeUnit.NANOSECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    @SuppressWarnings(
            "ModifyCollectionInEnhancedForLoop") // holds is a concurrent set: removing while iterating is defined
    private void tick() {
        lock.lock();
        try {
            tick = null;
            ticking = true;
            tickStartedAt = ticker.nanoTime();
        } finally {
            lock.unlock();
        }
        try {
            long now = ticker.nanoTime();
            List<Hold> due = new ArrayList<>();
            for (Hold h : holds) {
                if (h.state() != Hold.State.HELD) {
                    holds.remove(h);
                } else if (h.deadlineNanos() - now <= 0) {
                    holds.remove(h);
                    onLost.accept(h, "the lease ran out before it could be renewed");
                } else if (h.watchdog() && h.nextRenewalNanos() - now <= window(h) && renewing.add(h)) {
                    due.add(h);
                }
            }
            if (!due.isEmpty()) {
                try {
                    scheduler.execute(() -> renew(due));
                } catch (RejectedExecutionException e) {
                    due.forEach(renewing::remove); // the factory is closing
                }
            }
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "lease watchdog tick failed", e);
        } finally {
            lock.lock();
            try {
                ticking = false;
            } finally {
                lock.unlock();
            }
            scheduleNext();
        }
    }

    /**
     * How far behind schedule the watchdog is at {@code now}: how long its pending run is overdue,
     * or how long the run in progress has taken, whichever is more; 0 when on time or idle, -1 once
     * stopped. For health reports.
     */
    long lateNanos(long now) {
        lock.lock();
        try {
            if (stopped) {
                return -1;
            }
            long late = 0;
            if (tick != null) {
                late = Math.max(late, now - tickAt);
            }
            if (ticking) {
                late = Math.max(late, now - tickStartedAt);
            }
            return late;
        } finally {
            lock.unlock();
        }
    }

    /** Schedules a tick for the earliest moment a hold needs attention. */
    private void scheduleNext() {
        long next = Long.MAX_VALUE;
        boolean any = false;
        for (Hold h : holds) {
            // A hold being renewed needs no renewal tick, only one at its deadline.
            long d = renewing.contains(h) ? h.deadlineNanos() : h.nextDueNanos();
            if (!any || d - next < 0) {
                next = d;
                any = true;
            }
        }
        if (any) {
            scheduleBy(next);
        }
    }

    private static long window(Hold h) {
        return Math.min(h.renewalIntervalNanos() / 4, MAX_WINDOW_NANOS);
    }

    private void renew(List<Hold> due) {
        try {
            renewNow(due);
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "lease renewal failed", e);
        } finally {
            due.forEach(renewing::remove);
            scheduleNext();
        }
    }

    private void renewNow(List<Hold> due) {
        List<Renewal> renewals = new ArrayList<>(due.size());
        for (Hold h : due) {
            renewals.add(new Renewal(h.name, h.owner, h.lease()));
        }
        long sent = ticker.nanoTime();
        List<Renewal> gone;
        try {
            gone = provider.renew(renewals);
        } catch (RuntimeException e) {
            logFailure(due.size(), sent, e);
            events.renewalFailed(due.size(), sent, e);
            long now = ticker.nanoTime();
            for (Hold h : due) {
                h.renewalFailed(now, Math.max(MIN_RETRY_NANOS, h.renewalIntervalNanos() / 4));
            }
            return;
        }
        int failed = failedInARow.getAndSet(0);
        if (failed > 0) {
            LOG.log(
                    System.Logger.Level.INFO,
                    "lock lease renewals succeed again after " + failed + " failed call(s) in "
                            + TimeUnit.NANOSECONDS.toMillis(ticker.nanoTime() - failingSince) + " ms");
        }
        events.renewed(due.size(), sent);
        Set<Renewal> goneSet = gone.isEmpty() ? Set.of() : new HashSet<>(gone);
        for (int i = 0; i < due.size(); i++) {
            Hold h = due.get(i);
            if (goneSet.contains(renewals.get(i))) {
                holds.remove(h);
                onLost.accept(h, "renewal found the lock no longer held by this owner");
            } else if (h.watchdog()) {
                h.renewed(sent);
            }
        }
    }

    private void logFailure(int holds, long sent, RuntimeException e) {
        if (failedInARow.incrementAndGet() == 1) {
            failingSince = sent;
            LOG.log(
                    System.Logger.Level.WARNING,
                    "renewing " + holds + " lock lease(s) failed; retrying until their deadlines (further"
                            + " failures are logged at DEBUG until a renewal succeeds)",
                    e);
        } else {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "renewing " + holds + " lock lease(s) failed again (" + failedInARow.get() + " in a row)",
                    e);
        }
    }
}
