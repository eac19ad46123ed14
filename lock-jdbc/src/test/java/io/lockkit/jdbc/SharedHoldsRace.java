package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients that claim one name at once, as permits (two of a capacity of two) and now and then
 * exclusively, each attempt one call: the database must never admit more than the rule allows.
 * Each admitted holder counts itself in before it does anything and out before it releases, so a
 * count above the rule is two admissions the database let overlap.
 */
final class SharedHoldsRace {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int CAPACITY = 2;

    private SharedHoldsRace() {}

    /** Runs {@code threads} threads per provider for {@code length}; fails on any overlap past the rule. */
    static void check(List<JdbcLockProvider> providers, String name, int threads, Duration length)
            throws InterruptedException {
        AtomicInteger permits = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger sharedAdmissions = new AtomicInteger();
        AtomicInteger exclusiveAdmissions = new AtomicInteger();
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        long end = System.nanoTime() + length.toNanos();
        List<Thread> all = new ArrayList<>();
        for (int p = 0; p < providers.size(); p++) {
            JdbcLockProvider provider = providers.get(p);
            for (int t = 0; t < threads; t++) {
                String owner = "c" + p + ":t" + t;
                Thread thread = new Thread(() -> {
                    int round = 0;
                    try {
                        while (System.nanoTime() - end < 0) {
                            boolean exclusive = round++ % 5 == 4;
                            Claim claim = exclusive ? Claim.EXCLUSIVE : Claim.shared(1, CAPACITY);
                            if (!provider.tryAcquire(new LockRequest(name, owner, LEASE, Duration.ZERO, 0, claim))
                                    .isAcquired()) {
                                Thread.onSpinWait();
                                continue;
                            }
                            AtomicInteger mine = exclusive ? writers : permits;
                            (exclusive ? exclusiveAdmissions : sharedAdmissions).incrementAndGet();
                            mine.incrementAndGet();
                            check(owner, writers, permits, violations);
                            Thread.sleep(2); // holds a while, so that holds overlap where the rule lets them
                            check(owner, writers, permits, violations);
                            mine.decrementAndGet();
                            provider.release(name, owner);
                        }
                    } catch (RuntimeException | Error e) {
                        failures.add(e);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        failures.add(e);
                    }
                });
                all.add(thread);
                thread.start();
            }
        }
        for (Thread t : all) {
            t.join(length.toMillis() + 60_000);
        }
        assertThat(failures).as("calls that failed").isEmpty();
        assertThat(violations).as("holds admitted past the rule").isEmpty();
        assertThat(sharedAdmissions.get()).as("permits admitted").isPositive();
        assertThat(exclusiveAdmissions.get()).as("exclusive holds admitted").isPositive();
    }

    private static void check(
            String owner, AtomicInteger writers, AtomicInteger permits, ConcurrentLinkedQueue<String> violations) {
        int w = writers.get();
        int r = permits.get();
        if (w > 1 || (w == 1 && r > 0) || r > CAPACITY) {
            violations.add(owner + " saw " + w + " writer(s) and " + r + " permit(s)");
        }
    }
}
