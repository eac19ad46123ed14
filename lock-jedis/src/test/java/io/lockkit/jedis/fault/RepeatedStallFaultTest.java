package io.lockkit.jedis.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.support.Closer;
import io.lockkit.testkit.history.HoldHistory;
import io.lockkit.testkit.history.HoldHistory.Hold;
import io.lockkit.testkit.history.HoldHistory.Outcome;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 9: Redis stalls (SIGSTOP) for longer than the watchdog lease, again and again, while three
 * clients (three providers and factories in this JVM, as three processes would be) with four threads
 * each take one lock and hold it for up to half a lease. The command timeout is longer than the
 * stall, so requests sent during a stall run when Redis resumes and their replies arrive late: an
 * acquisition whose reply comes after its lease is reported lost at once, and its release, run
 * by Redis, may hand the lock straight to a waiter of the same client. That waiter must be told of
 * the grant and count its lease from the release, or it holds the lock on its client while Redis
 * has already given it to another client.
 *
 * <p>Checked with {@link HoldHistory}, and more strictly, since a stall frees a lock only by a lease
 * that ran out: no two holds whose holders found them valid at the end of their critical sections
 * may overlap, whatever their release answered.
 */
@Tag("fault")
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("Fault: Redis stalled past the watchdog lease again and again under contention from 3 clients")
class RepeatedStallFaultTest {

    private static final int CLIENTS = 3;
    private static final int THREADS_PER_CLIENT = 4;
    private static final Duration LEASE = Duration.ofMillis(400);
    private static final Duration STALL = Duration.ofMillis(650);
    /** Longer than a stall: requests sent during it run when Redis resumes, and their replies are read. */
    private static final Duration TIMEOUT = Duration.ofMillis(1500);

    private static final Duration STALL_SPACING = Duration.ofMillis(500);
    /** System property: how many stalls a run injects (default 20, about 25 s). */
    static final String STALLS_PROPERTY = "lockkit.fault.stalls";

    private static final Duration WAIT = Duration.ofSeconds(3);

    @RegisterExtension
    static final RedisExtension REDIS = Faults.localRedis();

    private final Closer closer = new Closer();
    private final Faults.Threads threads = new Faults.Threads();
    private final ConcurrentLinkedQueue<Hold> history = new ConcurrentLinkedQueue<>();
    private final Map<Long, Long> lossHeardAt = new ConcurrentHashMap<>();
    private final AtomicInteger stalls = new AtomicInteger();
    private final AtomicInteger acquireFailures = new AtomicInteger();
    private volatile boolean stop;

    @AfterEach
    void cleanUp() throws Exception {
        stop = true;
        Faults.resume(REDIS.server());
        threads.close();
        closer.close();
    }

    @Test
    @DisplayName("no two holds valid at the end of their critical sections overlap, and the history checker passes")
    void holdsNeverOverlapAcrossRepeatedStalls() throws Exception {
        RedisServer redis = REDIS.server();
        String name = Faults.name("stalls");
        int rounds = Integer.getInteger(STALLS_PROPERTY, 20);
        for (int c = 0; c < CLIENTS; c++) {
            DistributedLockFactory client = closer.add(Faults.factory(
                    Faults.provider(redis.uri())
                            .timeout(TIMEOUT)
                            .connectTimeout(TIMEOUT)
                            .build(),
                    LEASE,
                    e -> lossHeardAt.putIfAbsent(e.fencingToken(), System.nanoTime())));
            int id = c;
            for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                boolean handles = t % 2 == 0;
                threads.start("client-" + c + "-" + t, () -> contend(id, client, name, handles));
            }
        }
        long start = System.nanoTime();
        for (int i = 0; i < rounds && threads.failure().isEmpty(); i++) {
            Thread.sleep(STALL_SPACING.toMillis() + ThreadLocalRandom.current().nextInt(300));
            Faults.stop(redis);
            try {
                Thread.sleep(STALL.toMillis());
            } finally {
                Faults.resume(redis);
            }
            stalls.incrementAndGet();
        }
        Thread.sleep(STALL_SPACING.toMillis());
        stop = true;
        assertThat(threads.join(Duration.ofSeconds(20)))
                .as("every thread stopped")
                .isTrue();
        threads.failure().ifPresent(e -> {
            throw new AssertionError("a client failed", e);
        });

        List<Hold> holds = List.copyOf(history);
        HoldHistory.Report r = HoldHistory.check(holds, lossHeardAt);
        List<String> overlaps = HoldHistory.overlapsOfValidHolds(holds, lossHeardAt);
        System.out.printf(
                "stalls: %d stalls of %d ms (lease %d ms) in %.1f s; %d holds, %d clean, %d lost at release,"
                        + " %d invalid at the end, %d heard by listener; %d acquisitions failed; overlaps of holds valid"
                        + " at their end %d; overlaps involving a lost hold %d%n",
                stalls.get(),
                STALL.toMillis(),
                LEASE.toMillis(),
                Faults.millisSince(start) / 1000.0,
                holds.size(),
                r.clean(),
                r.lostAtRelease(),
                r.invalidAtEnd(),
                r.lostHeard(),
                acquireFailures.get(),
                overlaps.size(),
                r.overlapsWithLost());
        overlaps.stream().limit(5).forEach(o -> System.out.println("stalls: overlap " + o));

        assertThat(stalls.get()).as("stalls injected").isEqualTo(rounds);
        assertThat(holds).as("holds").hasSizeGreaterThan(rounds);
        assertThat(overlaps)
                .as("holds valid at the end of their critical sections that overlap")
                .isEmpty();
        assertThat(r.duplicateTokens()).as("duplicate tokens").isEmpty();
        assertThat(r.cleanOverlaps()).as("overlapping clean holds").isEmpty();
        assertThat(r.cleanTokenInversions())
                .as("clean holds whose token did not increase in start order")
                .isEmpty();
        assertThat(r.fencingViolations())
                .as("clean holds whose token was not above an earlier-ended hold's")
                .isEmpty();
    }

    private void contend(int client, DistributedLockFactory f, String name, boolean handles) {
        DistributedLock lock = f.getLock(name);
        while (!stop) {
            try {
                if (handles) {
                    LockHandle h = f.acquire(name, LockOptions.waitAtMost(WAIT));
                    long start = System.nanoTime();
                    long token = h.fencingToken();
                    work();
                    long end = System.nanoTime(); // before the check: valid then means valid up to here
                    boolean valid = h.isValid();
                    record(client, token, start, end, valid, h::release);
                } else {
                    if (!lock.tryLock(WAIT, null)) {
                        continue;
                    }
                    long start = System.nanoTime();
                    long token;
                    try {
                        token = lock.fencingToken();
                    } catch (IllegalMonitorStateException lostAlready) {
                        // Lost before the holder looked (a reply that came after its lease): its
                        // release still goes to Redis, which may still have the hold.
                        unlockLost(lock);
                        continue;
                    }
                    work();
                    long end = System.nanoTime();
                    boolean valid = lock.getHoldCount() > 0;
                    record(client, token, start, end, valid, lock::unlock);
                }
            } catch (LockNotAcquiredException e) {
                // the wait ran out: try again
            } catch (LockException e) {
                acquireFailures.incrementAndGet();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void unlockLost(DistributedLock lock) {
        try {
            lock.unlock();
        } catch (RuntimeException e) {
            // LockLostException, as expected
        }
    }

    /** Up to half a lease: long enough for a stale holder's critical section to meet the next holder's. */
    private static void work() throws InterruptedException {
        Thread.sleep(ThreadLocalRandom.current().nextInt((int) LEASE.toMillis() / 2));
    }

    private void record(int client, long token, long start, long end, boolean valid, Runnable release) {
        Outcome outcome;
        try {
            release.run();
            outcome = Outcome.RELEASED;
        } catch (LockLostException e) {
            outcome = Outcome.LOST_AT_RELEASE;
        } catch (LockException e) {
            outcome = Outcome.RELEASE_FAILED;
        }
        history.add(new Hold(client, token, start, end, valid, outcome));
    }
}
