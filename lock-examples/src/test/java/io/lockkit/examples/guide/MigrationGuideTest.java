package io.lockkit.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.LeadershipOptions;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The lockkit side of the migration pages (docs/migrating-from-redisson.md,
 * docs/migrating-from-shedlock.md, docs/migrating-from-spring-integration.md), compiled and run on
 * the in-JVM provider; each block between {@code // migrate:<name>-begin} and {@code -end} is shown
 * on a page. Two factories over one {@link LocalLockProvider} play two instances of an application.
 * The other libraries' side of the pages is compiled, not run, in {@link MigrationPeerSnippets}.
 */
@DisplayName("the migration pages: lockkit's side as they show it")
class MigrationGuideTest {

    private final LocalLockProvider backend = new LocalLockProvider();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<Long> shipped = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private DistributedLockFactory instance() {
        DistributedLockFactory f = DistributedLockFactory.create(backend.newClient());
        toClose.add(f);
        return f;
    }

    /** Stands for the protected work: records the fencing token it was handed. */
    private void ship(long order, long fencingToken) {
        assertThat(order).isPositive();
        shipped.add(fencingToken);
    }

    @Test
    @DisplayName("Redisson's lock() and unlock(): a watchdog lock whose token grows with each hold")
    void redissonLock() throws Exception {
        DistributedLockFactory locks = instance();
        for (int i = 0; i < 2; i++) {
            // migrate:redisson-lock-begin
            DistributedLock lock = locks.getLock("orders:42"); // redisson.getLock("orders:42")
            lock.lock(); // renewed by the watchdog until unlock, as RLock.lock() is
            try {
                ship(42, lock.fencingToken()); // every hold has a token: no separate fenced lock
            } finally {
                lock.unlock();
            }
            // migrate:redisson-lock-end
        }
        assertThat(shipped).hasSize(2);
        assertThat(shipped.get(1)).isGreaterThan(shipped.get(0));
    }

    @Test
    @DisplayName("Redisson's tryLock(wait, lease): a lease that runs out is reported at unlock")
    void redissonLeaseRunsOut() throws Exception {
        DistributedLock lock = instance().getLock("orders:42");
        Duration lease = Duration.ofMillis(200);
        AtomicBoolean reported = new AtomicBoolean();
        // pollInSameThread: the hold belongs to this thread, whose lease Awaitility's own thread cannot see
        Runnable work = () -> await().pollInSameThread().until(() -> !lock.isHeldByCurrentThread());
        // migrate:redisson-lease-begin
        if (lock.tryLock(Duration.ofSeconds(5), lease)) { // Redisson: lock.tryLock(5, lease, unit)
            try {
                work.run(); // takes longer than the lease, which is not renewed
            } finally {
                try {
                    lock.unlock();
                } catch (LockLostException e) { // Redisson: IllegalMonitorStateException
                    reported.set(true); // another holder may have run meanwhile
                }
            }
        }
        // migrate:redisson-lease-end
        assertThat(reported).isTrue();
    }

    @Test
    @DisplayName("a handle is told of its loss at once, which no Redisson lock is")
    void lossIsReported() throws Exception {
        // A short watchdog lease, so that the renewal that finds the hold gone comes within a second.
        DistributedLockFactory locks = DistributedLockFactory.builder(backend.newClient())
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofSeconds(1))
                        .build())
                .build();
        toClose.add(locks);
        DistributedLockFactory operator = instance();
        AtomicBoolean cancelled = new AtomicBoolean();
        Runnable cancel = () -> cancelled.set(true);
        List<LockLostException> failures = new ArrayList<>();
        // The work: meanwhile an operator force-releases the lock, and the watchdog's next renewal finds it gone.
        Runnable work = () -> {
            assertThat(operator.operations().forceRelease("orders:42")).isTrue();
            await().atMost(Duration.ofSeconds(30)).untilTrue(cancelled);
        };
        // migrate:loss-begin
        try (LockHandle hold = locks.acquire("orders:42", LockOptions.waitAtMost(Duration.ofSeconds(5)))) {
            hold.lost().thenRun(cancel); // runs once the hold is known lost: lease lapsed, key gone
            ship(42, hold.fencingToken());
            work.run();
        } catch (LockLostException e) { // closing a lost hold says so as well
            failures.add(e); // another holder may have run meanwhile
        }
        // migrate:loss-end
        assertThat(failures)
                .singleElement()
                .extracting(LockLostException::lockName)
                .isEqualTo("orders:42");
        assertThat(cancelled).isTrue();
        assertThat(shipped).hasSize(1);
    }

    // migrate:shedlock-begin
    /** Runs report unless another instance started it less than atLeast ago; false when skipped. */
    static boolean runLikeShedLock(DistributedLockFactory locks, Duration atLeast, Runnable report) {
        Optional<LockHandle> turn = locks.tryAcquire("nightly-report"); // busy: another instance runs it
        if (turn.isEmpty()) {
            return false; // skipped, as ShedLock skips
        }
        long started = System.nanoTime();
        try {
            report.run(); // renewed while it runs: no lockAtMostFor to guess
        } finally {
            Duration rest = atLeast.minusNanos(System.nanoTime() - started); // lockAtLeastFor
            turn.get().releaseAfter(rest.isNegative() ? Duration.ZERO : rest);
        }
        return true;
    }
    // migrate:shedlock-end

    @Test
    @DisplayName("ShedLock's executeWithLock: one instance runs, the other skips until lockAtLeastFor is over")
    void shedLockRun() {
        DistributedLockFactory first = instance();
        DistributedLockFactory second = instance();
        AtomicInteger runs = new AtomicInteger();
        Duration atLeast = Duration.ofMillis(500);
        assertThat(runLikeShedLock(first, atLeast, runs::incrementAndGet)).isTrue();
        assertThat(runLikeShedLock(second, atLeast, runs::incrementAndGet)).isFalse();
        await().atMost(Duration.ofSeconds(30)).until(() -> runLikeShedLock(second, atLeast, runs::incrementAndGet));
        assertThat(runs).hasValue(2);
    }

    @Test
    @DisplayName("Spring's obtain(key) and tryLock: the same java.util.concurrent.locks.Lock code")
    void springObtain() throws Exception {
        DistributedLockFactory locks = instance();
        // migrate:spring-lock-begin
        DistributedLock lock = locks.getLock("orders:42"); // registry.obtain("orders:42")
        if (lock.tryLock(5, TimeUnit.SECONDS)) {
            try {
                ship(42, lock.fencingToken());
            } finally {
                lock.unlock(); // a lost hold throws LockLostException, not IllegalStateException
            }
        }
        // migrate:spring-lock-end
        assertThat(shipped).hasSize(1);
    }

    @Test
    @DisplayName("Spring's executeLocked: runWithLock waits, runs and releases")
    void springExecuteLocked() throws Exception {
        DistributedLockFactory locks = instance();
        AtomicInteger runs = new AtomicInteger();
        Runnable recount = runs::incrementAndGet;
        // migrate:spring-execute-begin
        // registry.executeLocked("stock:tea", Duration.ofSeconds(5), recount::run)
        locks.runWithLock("stock:tea", LockOptions.waitAtMost(Duration.ofSeconds(5)), recount);
        // migrate:spring-execute-end
        assertThat(runs).hasValue(1);
        assertThat(locks.getLock("stock:tea").isLocked()).isFalse();
    }

    @Test
    @DisplayName("Spring's LockRegistryLeaderInitiator: a leadership with a fenced term")
    void springLeader() throws Exception {
        DistributedLockFactory locks = instance();
        List<String> log = new CopyOnWriteArrayList<>();
        // migrate:spring-leader-begin
        Leadership leadership = locks.leadership(
                "billing",
                LeadershipOptions.builder() // in place of a Candidate's onGranted and onRevoked
                        .onElected(term -> log.add("leading, term " + term.fencingToken()))
                        .onRevoked((term, reason) -> log.add("stopped: " + reason))
                        .build());
        leadership.start();
        // migrate:spring-leader-end
        assertThat(leadership.awaitTerm(Duration.ofSeconds(30))).isPresent();
        leadership.close();
        assertThat(log).hasSize(2);
        assertThat(log.get(0)).startsWith("leading, term ");
        assertThat(log.get(1)).isEqualTo("stopped: CLOSED");
    }
}
