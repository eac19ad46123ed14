package io.lockkit.testkit.history;

import io.lockkit.testkit.history.LockHistory.Fault;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * The fault thread's side of a {@link LockHistory} run: injects the faults in turn, a fault marked
 * {@code duringLongHold} at the start of a long critical section (waiting up to 3 s for one), and
 * keeps how often and when each was injected. Thread-safe.
 */
final class HistoryFaults {

    private final List<Fault> faults;
    private final Duration spacing;
    private final Map<String, AtomicInteger> injected = new LinkedHashMap<>();
    /** Fault injections as {index, start, end} (System.nanoTime()), in order: named in the report of a violation. */
    private final ConcurrentLinkedQueue<long[]> times = new ConcurrentLinkedQueue<>();

    HistoryFaults(List<Fault> faults, Duration spacing) {
        this.faults = List.copyOf(faults);
        this.spacing = spacing;
        for (Fault f : this.faults) {
            injected.put(f.name(), new AtomicInteger());
        }
    }

    boolean isEmpty() {
        return faults.isEmpty();
    }

    /** The fault thread's loop, until {@code stop} says so; {@code longHolds} counts long critical sections begun. */
    void inject(IntSupplier longHolds, BooleanSupplier stop) {
        try {
            Thread.sleep(spacing.toMillis());
            while (!stop.getAsBoolean()) {
                for (Fault fault : faults) {
                    if (stop.getAsBoolean()) {
                        return;
                    }
                    if (fault.duringLongHold()) {
                        int seen = longHolds.getAsInt();
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                        while (longHolds.getAsInt() == seen && System.nanoTime() - until < 0 && !stop.getAsBoolean()) {
                            Thread.sleep(1);
                        }
                    }
                    long from = System.nanoTime();
                    try {
                        fault.action().inject();
                    } finally {
                        times.add(new long[] {faults.indexOf(fault), from, System.nanoTime()});
                    }
                    Objects.requireNonNull(injected.get(fault.name())).incrementAndGet();
                    Thread.sleep(spacing.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("injecting a fault failed", e);
        }
    }

    /** Whether every fault was injected at least {@code rounds} times. */
    boolean injectedAtLeast(int rounds) {
        return injected.values().stream().allMatch(n -> n.get() >= rounds);
    }

    /** How often each fault was injected, by name, in the order they were given. */
    Map<String, Integer> counts() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        injected.forEach((k, v) -> counts.put(k, v.get()));
        return counts;
    }

    /** The injections that ran within {@code window} of {@code from}..{@code to}, as "name start-end" in ms since {@code origin}. */
    List<String> near(long from, long to, long window, long origin) {
        return times.stream()
                .filter(f -> f[2] > from - window && f[1] < to + window)
                .map(f -> String.format(
                        "%s %.1f-%.1f ms", faults.get((int) f[0]).name(), (f[1] - origin) / 1e6, (f[2] - origin) / 1e6))
                .toList();
    }
}
