package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.BackendUnavailableException;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.LockRequest;
import java.sql.SQLException;
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
    /** Attempts that failed on a deadlock the database broke (see {@link #attempt}), for the log. */
    private static final AtomicInteger DEADLOCKS = new AtomicInteger();

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
                            // Every fifth hold exclusive, asked for as a waiting claim (queued, so that
                            // writer preference keeps new permits out until it gets in).
                            boolean exclusive = round % 5 == 4;
                            Claim claim = exclusive ? Claim.EXCLUSIVE : Claim.shared(1, CAPACITY);
                            Duration wait = exclusive ? LEASE : Duration.ZERO;
                            if (!attempt(provider, new LockRequest(name, owner, LEASE, wait, round + 1, claim))) {
                                Thread.sleep(1);
                                continue;
                            }
                            round++;
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
        System.out.printf(
                "%s: %d permits and %d exclusive holds admitted; %d attempts failed on a deadlock the database broke%n",
                name, sharedAdmissions.get(), exclusiveAdmissions.get(), DEADLOCKS.getAndSet(0));
    }

    /**
     * One attempt. A deadlock the database broke (SQLState 40001: InnoDB's, between inserts of a name's
     * row that was just deleted) fails the attempt as an outage, which the SPI allows and the next
     * attempt gets past; it is counted, not a failure. Any other failure is.
     */
    private static boolean attempt(JdbcLockProvider provider, LockRequest request) {
        try {
            return provider.tryAcquire(request).isAcquired();
        } catch (BackendUnavailableException e) {
            if (e.getCause() instanceof SQLException s && "40001".equals(s.getSQLState())) {
                DEADLOCKS.incrementAndGet();
                return false;
            }
            throw e;
        }
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
