package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.LockProvider.Renewal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The watchdog on the real clock: renewal in batches, and loss on lapse. Short leases keep it quick. */
class LeaseWatchdogTest {

    private static final Duration WATCHDOG_LEASE = Duration.ofMillis(1500);

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final RenewalRecorder recorder = new RenewalRecorder(new LocalLockProvider());
    private final List<LockLostException> losses = new CopyOnWriteArrayList<>();
    private final DistributedLockFactory locks = DistributedLockFactory.builder(recorder)
            .scheduler(scheduler)
            .defaultOptions(LockOptions.builder().watchdogLease(WATCHDOG_LEASE).build())
            .onLockLost(losses::add)
            .build();

    @AfterEach
    void close() {
        locks.close();
        scheduler.shutdownNow();
    }

    @Test
    void watchdogRenewsHoldsTakenTogetherInOneCall() throws InterruptedException {
        warmUp();
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            handles.add(locks.acquire("batch:" + i, LockOptions.noWait()));
        }

        await().atMost(Duration.ofSeconds(5)).until(() -> !recorder.renewCalls().isEmpty());
        List<Renewal> first = recorder.renewCalls().get(0);
        assertThat(first).hasSize(20);
        assertThat(first)
                .extracting(Renewal::lease)
                .as("the options inherit the factory's watchdog lease")
                .containsOnly(WATCHDOG_LEASE);

        await().atMost(Duration.ofSeconds(5)).until(() -> recorder.renewals() >= 40);
        assertThat(recorder.renewCalls().size()).isLessThanOrEqualTo(recorder.renewals() / 10);
        assertThat(handles).allMatch(LockHandle::isValid);
        assertThat(losses).isEmpty();
        handles.forEach(LockHandle::close);
    }

    @Test
    void releasedHoldsAreNoLongerRenewed() throws InterruptedException {
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            handles.add(locks.acquire("quiet:" + i, LockOptions.noWait()));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> !recorder.renewCalls().isEmpty());

        handles.forEach(LockHandle::close);
        int callsAtRelease = recorder.renewCalls().size();

        // Quiet for longer than two renewal intervals (one renewal may have been in flight at release).
        AtomicInteger seen = new AtomicInteger(callsAtRelease);
        await().during(WATCHDOG_LEASE.dividedBy(3).multipliedBy(2).plusMillis(100))
                .atMost(Duration.ofSeconds(5))
                .until(() -> {
                    int calls = recorder.renewCalls().size();
                    return seen.getAndSet(calls) == calls;
                });
        assertThat(recorder.renewCalls().size()).isLessThanOrEqualTo(callsAtRelease + 1);
        assertThat(((ProviderLockFactory) locks).watchedHolds()).isZero();
    }

    @Test
    void lapsedLeaseIsReportedToTheListenerAndTheLostStage() throws InterruptedException {
        LockHandle handle = locks.acquire(
                "orders:42",
                LockOptions.builder().noWait().lease(Duration.ofMillis(150)).build());
        long token = handle.fencingToken();

        LockLostException loss = handle.lost()
                .toCompletableFuture()
                .orTimeout(5, java.util.concurrent.TimeUnit.SECONDS)
                .join();

        assertThat(loss).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(loss.lockName()).isEqualTo("orders:42");
        assertThat(loss.fencingToken()).isEqualTo(token);
        assertThat(loss.getMessage()).contains("lock lost", "orders:42", "token " + token);
        await().atMost(Duration.ofSeconds(1)).until(() -> losses.size() == 1);
        assertThat(losses).containsExactly(loss);
        assertThat(handle.isValid()).isFalse();
        assertThat(handle.holdCount()).isZero();
        assertThatThrownBy(handle::release).isSameAs(loss);
    }

    @Test
    void lossListenerHearsOfAThreadsLapsedHold() {
        DistributedLock lock = locks.getLock("orders:7");
        lock.lock(Duration.ofMillis(150));
        long token = lock.fencingToken();

        await().atMost(Duration.ofSeconds(5)).until(() -> !losses.isEmpty());

        assertThat(losses.get(0).lockName()).isEqualTo("orders:7");
        assertThat(losses.get(0).fencingToken()).isEqualTo(token);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(lock::unlock).isSameAs(losses.get(0));
        assertThatThrownBy(lock::unlock)
                .as("the loss settled the thread's hold")
                .isExactlyInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void callerOwnedSchedulerOutlivesTheFactory() {
        locks.close();
        assertThat(scheduler.isShutdown()).isFalse();
    }

    /** Loads and runs the acquisition path once, so the 20 acquisitions that follow are quick. */
    private static void warmUp() throws InterruptedException {
        try (DistributedLockFactory other = DistributedLockFactory.create(new LocalLockProvider())) {
            other.acquire("warm-up", LockOptions.noWait()).close();
        }
    }
}
