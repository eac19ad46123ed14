package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lease deadlines on a fake clock shared by the backend and the clients, so nothing sleeps. The
 * watchdog still runs on a real scheduler thread, so these tests take explicit leases (whose first
 * watchdog look is due only at the deadline, in real time far beyond the test) or look at
 * watchdog holds right after taking them.
 */
class LeaseArithmeticTest {

    private static final Duration TEN_SECONDS = Duration.ofSeconds(10);

    private final FakeTicker ticker = new FakeTicker();
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final List<LockLostException> losses = new CopyOnWriteArrayList<>();
    private final DistributedLockFactory locks = client(backend);

    private DistributedLockFactory client(LocalLockProvider provider) {
        return DistributedLockFactory.builder(provider)
                .ticker(ticker)
                .onLockLost(losses::add)
                .build();
    }

    private static LockOptions leaseOf(Duration lease) {
        return LockOptions.builder().noWait().lease(lease).build();
    }

    @AfterEach
    void close() {
        locks.close();
    }

    @Test
    void remainingLeaseFollowsTheTicker() throws InterruptedException {
        try (LockHandle handle = locks.acquire("orders:42", leaseOf(TEN_SECONDS))) {
            assertThat(handle.remainingLease()).isEqualTo(TEN_SECONDS);

            ticker.advance(Duration.ofSeconds(4));
            assertThat(handle.remainingLease()).isEqualTo(Duration.ofSeconds(6));
            assertThat(handle.isValid()).isTrue();
            assertThat(backend.inspect("orders:42"))
                    .map(s -> s.remainingLease())
                    .contains(Duration.ofSeconds(6));
        }
    }

    @Test
    void leaseRunsOutOnTheTickerAndAnotherClientGetsIn() throws InterruptedException {
        LockHandle first = locks.acquire("orders:42", leaseOf(TEN_SECONDS));
        try (DistributedLockFactory other = client(backend.newClient())) {
            assertThat(other.tryAcquire("orders:42")).isEmpty();

            ticker.advance(TEN_SECONDS.plusNanos(1));
            assertThat(first.isValid()).isFalse();
            assertThat(first.remainingLease()).isEqualTo(Duration.ZERO);

            Optional<LockHandle> second = other.tryAcquire("orders:42");
            assertThat(second).isPresent();
            assertThat(second.get().fencingToken()).isGreaterThan(first.fencingToken());
            assertThatThrownBy(first::release)
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("orders:42");
            assertThat(second.get().isValid())
                    .as("the old holder's release leaves the new hold alone")
                    .isTrue();
            second.get().close();
        }
    }

    @Test
    void leaseEndsExactlyAtItsDeadline() throws InterruptedException {
        LockHandle handle = locks.acquire("orders:42", leaseOf(TEN_SECONDS));

        ticker.advance(TEN_SECONDS.minusNanos(1));
        assertThat(handle.isValid()).isTrue();
        assertThat(handle.remainingLease()).isEqualTo(Duration.ofNanos(1));

        ticker.advance(Duration.ofNanos(1));
        assertThat(handle.isValid()).isFalse();
        assertThat(locks.tryAcquire("orders:42")).as("the backend agrees").isPresent();
    }

    @Test
    void reentrantHandleAcquisitionKeepsTheToken() throws InterruptedException {
        try (LockHandle handle = locks.acquire("orders:42", leaseOf(TEN_SECONDS))) {
            long token = handle.fencingToken();
            ticker.advance(Duration.ofSeconds(4));

            handle.acquireAgain();

            assertThat(handle.fencingToken()).isEqualTo(token);
            assertThat(handle.holdCount()).isEqualTo(2);
            assertThat(handle.remainingLease())
                    .as("the client never claims more than it knows")
                    .isLessThanOrEqualTo(TEN_SECONDS);
            handle.release();
            assertThat(handle.holdCount()).isEqualTo(1);
            assertThat(handle.isValid()).isTrue();
        }
        assertThat(locks.tryAcquire("orders:42")).isPresent();
    }

    @Test
    void reentrantLockingKeepsTheTokenAndNeverShortensTheLease() {
        DistributedLock lock = locks.getLock("orders:42");
        lock.lock(TEN_SECONDS);
        long token = lock.fencingToken();

        ticker.advance(Duration.ofSeconds(4));
        lock.lock(TEN_SECONDS);
        assertThat(lock.fencingToken()).isEqualTo(token);
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.remainingLease()).as("a longer reentrant lease extends").isEqualTo(TEN_SECONDS);

        lock.lock(Duration.ofSeconds(1));
        assertThat(lock.remainingLease())
                .as("a shorter reentrant lease does not shorten")
                .isEqualTo(TEN_SECONDS);
        assertThat(lock.getHoldCount()).isEqualTo(3);

        lock.unlock();
        lock.unlock();
        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void extendSetsTheLeaseFromNow() throws InterruptedException {
        try (LockHandle handle = locks.acquire("orders:42", leaseOf(TEN_SECONDS))) {
            ticker.advance(Duration.ofSeconds(8));

            handle.extend(TEN_SECONDS);
            assertThat(handle.remainingLease()).isEqualTo(TEN_SECONDS);

            ticker.advance(Duration.ofSeconds(9));
            assertThat(handle.isValid()).isTrue();
            assertThat(backend.inspect("orders:42")).isPresent();
        }
    }

    @Test
    void extendingAfterTheLeaseRanOutReportsTheLossOnce() throws InterruptedException {
        LockHandle handle = locks.acquire("orders:42", leaseOf(TEN_SECONDS));
        long token = handle.fencingToken();
        ticker.advance(Duration.ofSeconds(11));

        assertThatThrownBy(() -> handle.extend(TEN_SECONDS)).isInstanceOfSatisfying(LockLostException.class, e -> {
            assertThat(e).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(e.lockName()).isEqualTo("orders:42");
            assertThat(e.fencingToken()).isEqualTo(token);
            assertThat(losses).containsExactly(e);
        });
        assertThat(handle.lost().toCompletableFuture()).isCompletedWithValue(losses.get(0));

        handle.close(); // the loss was thrown already: closing says nothing more
        assertThat(losses).hasSize(1);
    }

    @Test
    void optionsWithoutAWatchdogLeaseTakeTheFactorysLease() throws InterruptedException {
        Duration factoryLease = Duration.ofSeconds(5);
        try (DistributedLockFactory tuned = DistributedLockFactory.builder(backend.newClient())
                .ticker(ticker)
                .defaultOptions(
                        LockOptions.builder().watchdogLease(factoryLease).build())
                .build()) {
            LockHandle inherited = tuned.acquire("orders:1", LockOptions.noWait());
            assertThat(inherited.remainingLease()).isEqualTo(factoryLease);
            assertThat(backend.inspect("orders:1")).map(s -> s.remainingLease()).contains(factoryLease);

            LockHandle own = tuned.acquire(
                    "orders:2",
                    LockOptions.builder()
                            .noWait()
                            .watchdogLease(Duration.ofSeconds(2))
                            .build());
            assertThat(own.remainingLease()).isEqualTo(Duration.ofSeconds(2));

            DistributedLock lock = tuned.getLock("orders:3");
            lock.lock();
            assertThat(lock.remainingLease()).isEqualTo(factoryLease);
            lock.unlock();

            ticker.advance(Duration.ofSeconds(1));
            assertThat(inherited.remainingLease()).isLessThanOrEqualTo(factoryLease);
        }
    }
}
