package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Holds whose end the backend never confirmed: a release that failed, an acquisition whose answer
 * was lost, a backend a count ahead of the client. The thread's next lock must not merge into the
 * stale backend hold (and take its fencing token), and a hold given up for good is freed however
 * many counts the backend has for it. A fake clock; the backend is {@link LocalLockProvider} behind
 * a decorator that fails on cue.
 */
class UnsettledHoldTest {

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final Flaky flaky = new Flaky();
    private final List<DistributedLockFactory> factories = new ArrayList<>();

    @AfterEach
    void closeAll() {
        factories.forEach(DistributedLockFactory::close);
    }

    private DistributedLockFactory factory(io.lockkit.spi.LockProvider provider) {
        DistributedLockFactory f = DistributedLockFactory.builder(provider)
                .ticker(ticker)
                .scheduler(scheduler)
                .subscriptionLinger(Duration.ZERO)
                .build();
        factories.add(f);
        return f;
    }

    /** Fails the next release before sending it, or sends the next acquisition twice / loses its answer. */
    private final class Flaky extends ForwardingLockProvider {
        final AtomicBoolean failRelease = new AtomicBoolean();
        final AtomicBoolean loseAnswer = new AtomicBoolean();
        final AtomicBoolean sendTwice = new AtomicBoolean();
        final AtomicInteger releases = new AtomicInteger();

        Flaky() {
            super(backend);
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            if (sendTwice.compareAndSet(true, false)) {
                super.tryAcquire(request); // a request retried after its answer was lost
            }
            Acquisition a = super.tryAcquire(request);
            if (loseAnswer.compareAndSet(true, false)) {
                throw new BackendUnavailableException(request.name(), "test: the answer was lost", null);
            }
            return a;
        }

        @Override
        public void close() {
            // The backend outlives the factories, so that the test can look at it after a close.
        }

        @Override
        public Release release(String name, String owner) {
            releases.incrementAndGet();
            if (failRelease.compareAndSet(true, false)) {
                throw new BackendUnavailableException(name, "test: the release was not sent", null);
            }
            return super.release(name, owner);
        }
    }

    @Test
    void aThreadsLockAfterAFailedReleaseFreesTheStaleHoldFirstAndGetsANewToken() throws Exception {
        DistributedLock lock = factory(flaky).getLock("unsettled:release");
        lock.lock();
        long first = lock.fencingToken();
        flaky.failRelease.set(true);
        assertThatThrownBy(lock::unlock).isInstanceOf(BackendUnavailableException.class);
        assertThat(backend.inspect("unsettled:release"))
                .as("still held on the backend")
                .isPresent();

        assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
        assertThat(lock.fencingToken()).isGreaterThan(first);
        lock.unlock();
        assertThat(backend.inspect("unsettled:release")).isEmpty();
    }

    @Test
    void observersHearOfTheHoldsEndWhenItsReleaseFailed() throws Exception {
        java.util.List<Long> released = new java.util.concurrent.CopyOnWriteArrayList<>();
        DistributedLockFactory f = DistributedLockFactory.builder(flaky)
                .ticker(ticker)
                .scheduler(scheduler)
                .subscriptionLinger(Duration.ZERO)
                .observer(new LockObserver() {
                    @Override
                    public void released(String name, long fencingToken, long heldNanos) {
                        released.add(fencingToken);
                    }
                })
                .build();
        factories.add(f);
        DistributedLock lock = f.getLock("unsettled:observed");
        lock.lock();
        long token = lock.fencingToken();
        flaky.failRelease.set(true);
        assertThatThrownBy(lock::unlock).isInstanceOf(BackendUnavailableException.class);
        assertThat(released).containsExactly(token);
    }

    @Test
    void whenFreeingTheStaleHoldFailsTheLockFailsAndTheNextOneTriesAgain() throws Exception {
        DistributedLock lock = factory(flaky).getLock("unsettled:twice");
        lock.lock();
        long first = lock.fencingToken();
        flaky.failRelease.set(true);
        assertThatThrownBy(lock::unlock).isInstanceOf(BackendUnavailableException.class);

        flaky.failRelease.set(true);
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, null)).isInstanceOf(BackendUnavailableException.class);
        assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
        assertThat(lock.fencingToken()).isGreaterThan(first);
        lock.unlock();
        assertThat(backend.inspect("unsettled:twice")).isEmpty();
    }

    @Test
    void aThreadsLockAfterALostAcquisitionAnswerEndsFreedAtItsUnlock() throws Exception {
        DistributedLock lock = factory(flaky).getLock("unsettled:answer");
        flaky.loseAnswer.set(true);
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, null)).isInstanceOf(BackendUnavailableException.class);
        assertThat(backend.inspect("unsettled:answer"))
                .as("acquired on the backend")
                .isPresent();

        assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(backend.inspect("unsettled:answer")).isEmpty();
    }

    @Test
    void nothingExtraIsSentWhenNothingFailed() throws Exception {
        DistributedLock lock = factory(flaky).getLock("unsettled:none");
        for (int i = 0; i < 3; i++) {
            lock.lock();
            lock.unlock();
        }
        assertThat(flaky.releases.get()).isEqualTo(3);
    }

    @Test
    void closingTheFactoryFreesAHoldTheBackendCountsTwice() throws Exception {
        DistributedLockFactory f = factory(flaky);
        flaky.sendTwice.set(true);
        f.acquire("unsettled:close", LockOptions.noWait());
        assertThat(backend.inspect("unsettled:close").orElseThrow().holdCounts())
                .containsValue(2);
        f.close();
        assertThat(backend.inspect("unsettled:close")).isEmpty();
    }
}
