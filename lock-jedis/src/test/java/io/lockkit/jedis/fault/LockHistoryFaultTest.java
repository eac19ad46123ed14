package io.lockkit.jedis.fault;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.fault.HoldHistory.Hold;
import io.lockkit.jedis.fault.HoldHistory.Outcome;
import io.lockkit.jedis.support.Closer;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.lockkit.jedis.fault.Faults.LEASE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault 8: a history checker. Four clients (separate providers and factories, as separate
 * processes would be) with four threads each take one lock over and over while a fault thread
 * kills pub/sub and command connections, deletes the lock key, stalls Redis for less and for more
 * than a lease, and restarts it. Every hold is recorded with its token and the interval in which
 * its holder believed it valid; {@link HoldHistory} then checks mutual exclusion among clean holds
 * and the order of tokens in time (see there for which holds count, and why).
 */
@Tag("fault")
@DisplayName("Fault: history of 10,000 acquisitions by 4 clients under a mix of faults")
class LockHistoryFaultTest {

    private static final int CLIENTS = 4;
    private static final int THREADS_PER_CLIENT = 4;
    private static final int MIN_ACQUISITIONS = 10_000;
    private static final int MIN_ROUNDS_OF_FAULTS = 2;
    private static final Duration MAX_RUN = Duration.ofSeconds(80);
    private static final Duration WAIT = Duration.ofSeconds(2);
    private static final Duration FAULT_SPACING = Duration.ofMillis(1200);

    @RegisterExtension
    static final RedisExtension REDIS = Faults.localRedis();

    enum Fault { PUB_SUB_KILLED, CONNECTIONS_KILLED, KEY_DELETED, SHORT_STALL, LONG_STALL, RESTART }

    private final Closer closer = new Closer();
    private final Faults.Threads threads = new Faults.Threads();
    private final ConcurrentLinkedQueue<Hold> history = new ConcurrentLinkedQueue<>();
    /** Token → when its holder's client was told of its loss (listener). */
    private final Map<Long, Long> lossHeardAt = new ConcurrentHashMap<>();
    private final AtomicInteger acquisitions = new AtomicInteger();
    private final AtomicInteger acquireTimeouts = new AtomicInteger();
    private final AtomicInteger acquireFailures = new AtomicInteger();
    private final Map<Fault, AtomicInteger> faults = new EnumMap<>(Fault.class);
    /** Long critical sections started so far. */
    private final AtomicInteger longHolds = new AtomicInteger();
    private volatile boolean stop;

    @AfterEach
    void cleanUp() throws Exception {
        stop = true;
        Faults.resume(REDIS.server());
        threads.close();
        closer.close();
    }

    @Test
    @DisplayName("no two clean holds overlap, and tokens are ordered in time")
    void historyShowsMutualExclusionAndFencing() throws Exception {
        RedisServer redis = REDIS.server();
        String name = Faults.name("history");
        for (Fault f : Fault.values()) {
            faults.put(f, new AtomicInteger());
        }
        for (int c = 0; c < CLIENTS; c++) {
            DistributedLockFactory client = closer.add(Faults.factory(Faults.provider(redis.uri()).build(), LEASE,
                    e -> lossHeardAt.putIfAbsent(e.fencingToken(), System.nanoTime())));
            int id = c;
            for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                // Half the threads hold handles, half hold the lock as threads: both paths of the core.
                boolean handles = t % 2 == 0;
                threads.start("client-" + c + "-" + t, () -> contend(id, client, name, handles));
            }
        }
        threads.start("faults", () -> injectFaults(redis, name));

        long start = System.nanoTime();
        while (!(acquisitions.get() >= MIN_ACQUISITIONS && faults.values().stream().allMatch(n -> n.get() >= MIN_ROUNDS_OF_FAULTS))
                && System.nanoTime() - start < MAX_RUN.toNanos() && threads.failure().isEmpty()) {
            Thread.sleep(100);
        }
        stop = true;
        assertThat(threads.join(Duration.ofSeconds(20))).as("every thread stopped").isTrue();
        threads.failure().ifPresent(e -> {
            throw new AssertionError("a client or the fault injector failed (faults so far " + faults + ")", e);
        });
        long runMillis = Faults.millisSince(start);

        check(List.copyOf(history), runMillis);
    }

    // ---- the clients ----

    private void contend(int client, DistributedLockFactory f, String name, boolean handles) {
        DistributedLock lock = f.getLock(name);
        while (!stop) {
            try {
                if (handles) {
                    LockHandle h = f.acquire(name, LockOptions.waitAtMost(WAIT));
                    long start = System.nanoTime();
                    long token = h.fencingToken();
                    work();
                    boolean valid = h.isValid();
                    long end = System.nanoTime();
                    record(client, token, start, end, valid, h::release);
                } else {
                    if (!lock.tryLock(WAIT, null)) {
                        acquireTimeouts.incrementAndGet();
                        continue;
                    }
                    long start = System.nanoTime();
                    long token = lock.fencingToken();
                    work();
                    boolean valid = !lock.remainingLease().isZero();
                    long end = System.nanoTime();
                    record(client, token, start, end, valid, lock::unlock);
                }
            } catch (LockNotAcquiredException e) {
                acquireTimeouts.incrementAndGet();
            } catch (LockException e) {
                acquireFailures.incrementAndGet(); // Redis down or stalled: try again, as an application would
            } catch (InterruptedException e) {
                return;
            }
        }
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
        acquisitions.incrementAndGet();
    }

    /** A short critical section; now and then a long one, so that faults also meet holds mid-way. */
    private void work() throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (random.nextInt(400) == 0) {
            longHolds.incrementAndGet();
            Thread.sleep(150 + random.nextInt(150));
            return;
        }
        long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(20);
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    // ---- the faults ----

    private void injectFaults(RedisServer redis, String name) {
        try {
            Thread.sleep(FAULT_SPACING.toMillis());
            while (!stop) {
                for (Fault fault : Fault.values()) {
                    if (stop) {
                        return;
                    }
                    if (fault == Fault.KEY_DELETED || fault == Fault.RESTART) {
                        // Aimed at the start of a long critical section, so the lock is freed under a
                        // holder that stays inside it while others may take it: the case fencing is for.
                        int seen = longHolds.get();
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                        while (longHolds.get() == seen && System.nanoTime() - until < 0 && !stop) {
                            Thread.sleep(1);
                        }
                    }
                    inject(fault, redis, name);
                    faults.get(fault).incrementAndGet();
                    Thread.sleep(FAULT_SPACING.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void inject(Fault fault, RedisServer redis, String name) throws InterruptedException {
        switch (fault) {
            case PUB_SUB_KILLED -> redis.command("CLIENT", "KILL", "TYPE", "pubsub");
            case CONNECTIONS_KILLED -> redis.command("CLIENT", "KILL", "TYPE", "normal"); // SKIPME yes: not this one
            case KEY_DELETED -> redis.command("DEL", Faults.lockKey(name));
            case SHORT_STALL -> stall(redis, Duration.ofMillis(300));
            case LONG_STALL -> stall(redis, LEASE.plusMillis(500));
            case RESTART -> redis.restart();
        }
    }

    private static void stall(RedisServer redis, Duration length) throws InterruptedException {
        Faults.stop(redis);
        try {
            Thread.sleep(length.toMillis());
        } finally {
            Faults.resume(redis);
        }
    }

    // ---- the checker ----

    private void check(List<Hold> holds, long runMillis) {
        HoldHistory.Report r = HoldHistory.check(holds, lossHeardAt);
        long[] perClient = new long[CLIENTS];
        holds.forEach(h -> perClient[h.client()]++);
        System.out.printf("history: %d acquisitions in %.1f s (%.0f/s) by %d clients x %d threads, per client %s%n",
                holds.size(), runMillis / 1000.0, holds.size() * 1000.0 / runMillis, CLIENTS, THREADS_PER_CLIENT,
                Arrays.toString(perClient));
        System.out.printf("history: faults injected %s%n", faults);
        System.out.printf("history: %d clean holds; lost: %d told by listener, %d told at release, %d invalid at the end"
                        + " of the critical section, %d never valid; %d releases failed; acquisitions that timed out %d,"
                        + " failed %d%n",
                r.clean(), r.lostHeard(), r.lostAtRelease(), r.invalidAtEnd(), r.neverValid(), r.releaseFailed(),
                acquireTimeouts.get(), acquireFailures.get());
        System.out.printf("history: overlaps among clean holds %d; overlaps involving a lost hold %d (later start with the"
                        + " smaller token: %d); clean holds not above an earlier-ended token %d; stale lost holders %d;"
                        + " duplicate tokens %d; max token gap %d us%n",
                r.cleanOverlaps().size(), r.overlapsWithLost(), r.overlapsWithLostInverted(), r.fencingViolations().size(),
                r.staleHolders(), r.duplicateTokens().size(), r.maxTokenGap());

        assertThat(holds.size()).as("acquisitions").isGreaterThanOrEqualTo(MIN_ACQUISITIONS);
        assertThat(Arrays.stream(perClient).min().orElse(0)).as("acquisitions of the least busy client").isPositive();
        assertThat(faults.values()).as("rounds of every fault")
                .allSatisfy(n -> assertThat(n.get()).isGreaterThanOrEqualTo(MIN_ROUNDS_OF_FAULTS));
        assertThat(r.duplicateTokens()).as("duplicate tokens").isEmpty();
        assertThat(r.cleanOverlaps()).as("overlapping clean holds").isEmpty();
        assertThat(r.cleanTokenInversions()).as("clean holds whose token did not increase in start order").isEmpty();
        assertThat(r.fencingViolations()).as("clean holds whose token was not above an earlier-ended hold's").isEmpty();
    }

    @Test
    @DisplayName("the checker rejects overlapping clean holds and tokens out of order, and accepts a fenced overlap")
    void checkerRejectsBrokenHistories() {
        long ms = TimeUnit.MILLISECONDS.toNanos(1);
        Hold a = new Hold(0, 100, 0, 10 * ms, true, Outcome.RELEASED);
        Hold overlapping = new Hold(1, 101, 5 * ms, 20 * ms, true, Outcome.RELEASED);
        Hold later = new Hold(1, 102, 30 * ms, 40 * ms, true, Outcome.RELEASED);
        Hold backwards = new Hold(2, 99, 50 * ms, 60 * ms, true, Outcome.RELEASED);
        Hold lost = new Hold(2, 103, 70 * ms, 90 * ms, true, Outcome.LOST_AT_RELEASE);
        Hold fenced = new Hold(3, 104, 80 * ms, 85 * ms, true, Outcome.RELEASED);
        Hold toldEarly = new Hold(0, 105, 100 * ms, 120 * ms, true, Outcome.LOST_AT_RELEASE);
        Hold afterTold = new Hold(1, 106, 110 * ms, 115 * ms, true, Outcome.RELEASED);

        assertThat(HoldHistory.check(List.of(a, later), Map.of()).passes()).isTrue();
        assertThat(HoldHistory.check(List.of(a, overlapping), Map.of()).cleanOverlaps()).hasSize(1);
        assertThat(HoldHistory.check(List.of(a, later, backwards), Map.of()).cleanTokenInversions()).hasSize(1);
        assertThat(HoldHistory.check(List.of(a, later, backwards), Map.of()).fencingViolations()).hasSize(1);
        assertThat(HoldHistory.check(List.of(a, a), Map.of()).duplicateTokens()).containsExactly(100L);
        HoldHistory.Report fencedOverlap = HoldHistory.check(List.of(a, later, lost, fenced), Map.of());
        assertThat(fencedOverlap.passes()).as("a lost hold overlapped by a greater token").isTrue();
        assertThat(fencedOverlap.overlapsWithLost()).isEqualTo(1);
        // A loss the listener heard of ends the hold's valid interval there.
        assertThat(HoldHistory.check(List.of(toldEarly, afterTold), Map.of(105L, 105 * ms)).overlapsWithLost()).isZero();
        assertThat(HoldHistory.check(List.of(toldEarly, afterTold), Map.of()).overlapsWithLost()).isEqualTo(1);
        // Holds valid at their end overlap only when both holders believed them valid at once.
        Hold lostButValid = new Hold(2, 107, 130 * ms, 150 * ms, true, Outcome.LOST_AT_RELEASE);
        Hold during = new Hold(3, 108, 140 * ms, 160 * ms, true, Outcome.RELEASED);
        Hold invalidAtEnd = new Hold(2, 109, 170 * ms, 190 * ms, false, Outcome.LOST_AT_RELEASE);
        Hold duringInvalid = new Hold(3, 110, 180 * ms, 200 * ms, true, Outcome.RELEASED);
        assertThat(HoldHistory.overlapsOfValidHolds(List.of(lostButValid, during), Map.of())).hasSize(1);
        assertThat(HoldHistory.overlapsOfValidHolds(List.of(lostButValid, during), Map.of(107L, 135 * ms))).isEmpty();
        assertThat(HoldHistory.overlapsOfValidHolds(List.of(invalidAtEnd, duringInvalid), Map.of())).isEmpty();
        assertThat(HoldHistory.overlapsOfValidHolds(List.of(a, later, lost), Map.of())).isEmpty();
    }
}
