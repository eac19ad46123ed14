package io.lockkit;

import io.lockkit.LockObserver.Outcome;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One asynchronous acquisition ({@link DistributedLockFactory#acquireAsync}): the steps of a
 * {@link Wait}, run on an executor as events arrive instead of on a parked thread. Thread-safe.
 *
 * <p>Design: nothing waits on a thread. The wait joins its name's room on the caller's thread (a
 * lock and a queue entry, no backend call), so a release that follows finds it; every attempt, the
 * subscription, the abandon and the release of a grant nobody wants run in steps on the executor.
 * A step is started (kicked) by what the blocking wait would wake up for: a wake-up from the room
 * (the provider's release notification, a direct grant, close), the timer of the latest busy
 * answer's retry hint or of the deadline (on the factory's scheduler, which only kicks), and the
 * caller completing or cancelling the stage. Kicks are counted, so steps never overlap and kicks
 * that arrive during a step make one more step, not one each. A cancelled stage ends the wait as
 * an interrupt ends a blocking one: the wait leaves the backend's queue (which gives back a grant
 * that raced the cancel), and a hold won in a step that the stage no longer takes is released.
 *
 * @param <T> what the stage completes with: the handle, or the handle as an {@code Optional}
 */
final class AsyncWait<T> {

    private static final System.Logger LOG = System.getLogger(ProviderLockFactory.class.getName());

    private final WaitServices services;
    /** The factory's scheduler: only the timers of retry hints and deadlines, which only kick. */
    private final ScheduledExecutorService timers;
    /** Registers the hold a grant stands for and makes its handle. */
    private final Function<Grant, LockHandle> handles;

    private final Wait wait;
    private final String name;
    private final String owner;
    private final ResolvedOptions options;
    private final long start;
    private final Executor executor;
    /** The stage's value for the handle won, or for none (a timeout): may throw (acquire's timeout). */
    private final Function<Optional<LockHandle>, T> result;

    final CompletableFuture<T> stage = new CompletableFuture<>();
    private final AtomicInteger kicks = new AtomicInteger();

    // Touched in steps only, which never overlap (the kick count orders them).
    private WaitQueues.@Nullable Waiter waiter;
    private @Nullable ScheduledFuture<?> timer;
    private boolean begun;
    private boolean done;

    AsyncWait(
            WaitServices services,
            ScheduledExecutorService timers,
            String name,
            String owner,
            ResolvedOptions options,
            long start,
            Executor executor,
            Function<Grant, LockHandle> handles,
            Function<Optional<LockHandle>, T> result) {
        this.services = services;
        this.timers = timers;
        this.handles = handles;
        this.name = name;
        this.owner = owner;
        this.options = options;
        this.start = start;
        this.executor = executor;
        this.result = result;
        this.wait = new Wait(services, name, owner, options, false, start, 0);
    }

    /** Joins the room (unless the wait is one attempt) and kicks the first step; returns the stage. */
    CompletableFuture<T> start() {
        if (!options.triesOnce()) {
            waiter = wait.join(this::kick);
        }
        // The caller cancelling or completing the stage kicks a step, which ends the wait.
        @SuppressWarnings("FutureReturnValueIgnored") // the dependent only kicks
        var unused = stage.whenComplete((value, failure) -> kick());
        kick();
        return stage;
    }

    /** Runs a step on the executor, or notes one more for the step running now. Never blocks. */
    private void kick() {
        if (kicks.getAndIncrement() != 0) {
            return;
        }
        try {
            executor.execute(this::steps);
        } catch (RejectedExecutionException e) {
            // Shut down: the factory is closing. The count stays up, so later kicks do nothing, and
            // the wait ends here (its abandon on this thread: only ever while closing).
            if (!done) {
                fail(new LockException(name, "the lock factory was closed while acquiring", e));
            }
        }
    }

    /** Runs steps until no kick is left; the kick count orders them (and their fields) one after another. */
    private void steps() {
        int missed = 1;
        do {
            step();
            missed = kicks.addAndGet(-missed);
        } while (missed != 0);
    }

    private void step() {
        WaitQueues.Waiter w = waiter;
        if (done || (begun && w != null && !due(w))) {
            return; // e.g. a wake-up that an attempt of the step before already followed
        }
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        timerFired = false;
        try {
            if (stage.isDone()) {
                // Cancelled (or completed) by the caller: give up as an interrupt does.
                services.events().notAcquired(name, options.claim(), start, Outcome.INTERRUPTED);
                finish(null);
                return;
            }
            if (w == null) {
                finish(wait.tryOnce());
                return;
            }
            Grant g;
            if (!begun) {
                begun = true;
                services.gate().ensureOpen(name, owner);
                g = wait.begin(w);
            } else {
                wait.checkCancelled(w);
                g = wait.retry(w);
                if (g == null && wait.expired()) {
                    wait.timedOut();
                    finish(null);
                    return;
                }
            }
            if (g != null) {
                finish(g);
                return;
            }
            long pause = wait.pause(w);
            if (pause < 0) {
                wait.timedOut();
                finish(null);
            } else if (pause == 0 || w.signalled()) {
                kick(); // a direct grant, or a wake-up that came during this step's attempts
            } else {
                timer = timers.schedule(this::timerFired, pause, TimeUnit.NANOSECONDS);
            }
        } catch (RuntimeException | Error e) {
            fail(e);
        }
    }

    /** Whether a step has something to do: what would wake a blocking wait happened. */
    private boolean due(WaitQueues.Waiter w) {
        return timerFired
                || w.signalled()
                || w.grant() != null
                || w.cancelled()
                || stage.isDone()
                || services.gate().isClosed();
    }

    private volatile boolean timerFired;

    private void timerFired() {
        timerFired = true;
        kick();
    }

    /** Ends the wait with {@code g} (null: without the lock) and completes the stage. */
    private void finish(@Nullable Grant g) {
        done = true;
        if (waiter != null) {
            wait.end(waiter);
        }
        if (g == null) {
            complete(Optional.empty());
            return;
        }
        LockHandle handle = handles.apply(g);
        complete(Optional.of(handle));
    }

    private void complete(Optional<LockHandle> handle) {
        T value;
        try {
            value = result.apply(handle);
        } catch (RuntimeException e) {
            stage.completeExceptionally(e);
            return;
        }
        if (!stage.complete(value) && handle.isPresent()) {
            // The caller cancelled the stage while this step won the lock: nobody will release it.
            try {
                handle.get().close();
            } catch (RuntimeException e) {
                LOG.log(
                        System.Logger.Level.DEBUG,
                        "releasing lock '" + name + "' won by a cancelled acquisition failed; its lease will lapse",
                        e);
            }
        }
    }

    private void fail(Throwable failure) {
        if (!done) {
            done = true;
            if (waiter != null) {
                try {
                    wait.end(waiter);
                } catch (RuntimeException e) {
                    failure.addSuppressed(e);
                }
            }
        }
        stage.completeExceptionally(failure);
    }
}
