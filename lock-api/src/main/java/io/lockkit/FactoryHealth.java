package io.lockkit;

import io.lockkit.HealthReport.WatchdogStatus;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * {@link LockOperations#health(Duration)} for the core factory: probes the backend with a
 * bounded wait, and reads the watchdog's lateness and the loss count. Thread-safe.
 */
// Design notes.
// - The probe is an existing SPI call, so every provider can be probed without a new SPI method:
//   inspect() of a fixed name where the provider declares INSPECTION (one read-only round trip),
//   else a try-acquire of that name without waiting and its release. Either way the provider is
//   called directly, not through the factory, so probes show in no observer, metric or JFR event.
//   A probe lock that is busy (another instance probing) still proves the backend answered.
// - Bounded: the probe runs on a thread of its own and the caller waits at most the timeout, so a
//   stalled backend (SIGSTOP, a network partition) makes a health endpoint answer DOWN on time
//   instead of hanging until the provider's own timeout. At most one probe runs per factory: a
//   check that finds one still running waits for that one rather than starting another, so a
//   stalled backend cannot pile up threads (the stuck probe ends at the provider's timeout).
// - The thread comes from the factory's thread factory when it was given one (a container's
//   managed threads), else it is a daemon thread of its own; none is kept between probes.
// - The watchdog is LATE when its next run is overdue, or its current run has lasted, longer than
//   the default renewal interval (at least a second): past that, renewals are missed.
final class FactoryHealth {

    /** The lock name the probe inspects or takes (under the provider's key prefix, if it has one). */
    static final String PROBE_NAME = "lockkit-health-probe";

    private static final Duration MIN_LATE = Duration.ofSeconds(1);

    private final LockProvider provider;
    private final Ticker ticker;
    private final String owner;
    private final LeaseWatchdog watchdog;
    private final ScheduledExecutorService scheduler;
    private final LossWindow losses;
    private final @Nullable ThreadFactory threads;
    private final BooleanSupplier closed;
    private final IntSupplier activeHolds;
    private final Supplier<Map<String, Boolean>> leaderships;
    private final Duration probeLease;
    private final long lateNanos;
    private @Nullable CompletableFuture<Long> probe;

    FactoryHealth(
            LockProvider provider,
            Ticker ticker,
            String clientId,
            LeaseWatchdog watchdog,
            ScheduledExecutorService scheduler,
            LossWindow losses,
            LockOptions defaults,
            @Nullable ThreadFactory threads,
            BooleanSupplier closed,
            IntSupplier activeHolds,
            Supplier<Map<String, Boolean>> leaderships) {
        this.provider = provider;
        this.ticker = ticker;
        this.owner = clientId + ":health";
        this.watchdog = watchdog;
        this.scheduler = scheduler;
        this.losses = losses;
        this.threads = threads;
        this.closed = closed;
        this.activeHolds = activeHolds;
        this.leaderships = leaderships;
        this.probeLease = defaults.effectiveWatchdogLease(defaults);
        Duration interval = defaults.effectiveRenewalInterval(defaults);
        this.lateNanos = (interval.compareTo(MIN_LATE) > 0 ? interval : MIN_LATE).toNanos();
    }

    HealthReport check(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("probeTimeout must be positive; was " + timeout);
        }
        String backend = String.valueOf(provider);
        if (closed.getAsBoolean()) {
            return new HealthReport(
                    backend,
                    null,
                    "the lock factory is closed",
                    0,
                    WatchdogStatus.STOPPED,
                    losses.lastMinute(ticker.nanoTime()),
                    Map.of());
        }
        Duration latency = null;
        String failure = null;
        CompletableFuture<Long> running = probe();
        try {
            latency = Duration.ofNanos(
                    running.get(Math.min(timeout.toNanos(), LockOptions.MAX_DURATION.toNanos()), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            failure = "the backend did not answer within " + timeout;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            failure = "the backend did not answer: " + cause;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "interrupted while waiting for the backend's answer";
        }
        long now = ticker.nanoTime();
        WatchdogStatus status = watchdogStatus(now);
        if (failure == null && status == WatchdogStatus.STOPPED) {
            failure = closed.getAsBoolean()
                    ? "the lock factory is closed"
                    : "the scheduler that renews leases was shut down";
        } else if (failure == null && status == WatchdogStatus.LATE) {
            failure = "the lease watchdog is " + TimeUnit.NANOSECONDS.toMillis(watchdog.lateNanos(now))
                    + " ms behind schedule; leases may lapse";
        }
        return new HealthReport(
                backend, latency, failure, activeHolds.getAsInt(), status, losses.lastMinute(now), leaderships.get());
    }

    private WatchdogStatus watchdogStatus(long now) {
        long late = watchdog.lateNanos(now);
        if (late < 0 || scheduler.isShutdown() || closed.getAsBoolean()) {
            return WatchdogStatus.STOPPED;
        }
        if (late > lateNanos) {
            return WatchdogStatus.LATE;
        }
        return watchdog.watched() > 0 ? WatchdogStatus.RUNNING : WatchdogStatus.IDLE;
    }

    /** The probe in flight, or a new one. */
    private synchronized CompletableFuture<Long> probe() {
        CompletableFuture<Long> p = probe;
        if (p != null && !p.isDone()) {
            return p;
        }
        CompletableFuture<Long> next = new CompletableFuture<>();
        Runnable task = () -> {
            try {
                next.complete(ask());
            } catch (Throwable t) {
                next.completeExceptionally(t);
                if (t instanceof VirtualMachineError) {
                    throw (VirtualMachineError) t;
                }
            }
        };
        Thread thread = threads != null ? threads.newThread(task) : null;
        if (thread == null) {
            thread = new Thread(task, "lockkit-health-probe");
            thread.setDaemon(true);
        }
        probe = next;
        try {
            thread.start();
        } catch (RuntimeException | Error e) {
            next.completeExceptionally(e); // e.g. no more threads: reported as the probe's failure
        }
        return next;
    }

    /** One question to the backend; returns how long it took to answer. */
    private long ask() {
        long start = ticker.nanoTime();
        if (provider.capabilities().contains(Capability.INSPECTION)) {
            provider.inspect(PROBE_NAME);
        } else {
            Acquisition a = provider.tryAcquire(new LockRequest(PROBE_NAME, owner, probeLease, Duration.ZERO));
            if (a.isAcquired()) {
                provider.release(PROBE_NAME, owner);
            }
        }
        return ticker.nanoTime() - start;
    }
}
