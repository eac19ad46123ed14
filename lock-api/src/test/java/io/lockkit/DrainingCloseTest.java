package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("close(drainTime): holders finish their work before anyone else gets their locks")
class DrainingCloseTest {

    /** Each task its own thread: blocking tasks must not queue behind each other in the common pool. */
    private final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();

    private static final String NAME = "jobs:nightly";

    private final LocalLockProvider backend = new LocalLockProvider();
    private final DistributedLockFactory closing = DistributedLockFactory.create(backend);
    private final LocalLockProvider otherClient = backend.newClient();
    private final DistributedLockFactory other = DistributedLockFactory.create(otherClient);

    @AfterEach
    void closeAll() {
        threads.shutdownNow();
        closing.close();
        other.close();
    }

    @Test
    @DisplayName("a waiter of another client gets the lock only after the holder released it, and close returns then")
    void waiterGetsTheLockOnlyAfterTheHolderReturned() throws Exception {
        LockHandle hold = closing.acquire(NAME);
        CompletableFuture<Void> closed =
                CompletableFuture.runAsync(() -> closing.close(Duration.ofSeconds(30)), threads);
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(
                () -> {
                    try (LockHandle h = other.acquire(NAME, LockOptions.waitAtMost(Duration.ofSeconds(30)))) {
                        return h.fencingToken();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThatThrownBy(() -> closing.tryAcquire("new"))
                        .as("new acquisitions are refused while draining")
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("closing"));
        hold.acquireAgain(); // the holder's own work may still take its lock again
        assertThat(waiter).as("the holder still runs").isNotDone();
        assertThat(closed).as("close waits for the holder").isNotDone();
        assertThat(hold.isValid()).isTrue();
        hold.release();
        hold.release();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(hold.fencingToken());
        closed.get(10, TimeUnit.SECONDS);
        assertThat(hold.lost()).as("a hold released by its owner is not lost").isNotDone();
    }

    @Test
    @DisplayName("a holder still running when the drain time ends loses its lock and is told")
    void holderPastTheDrainTimeIsTold() throws Exception {
        LockHandle hold = closing.acquire(NAME);
        long started = System.nanoTime();
        closing.close(Duration.ofMillis(300));
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("close waited for the drain time")
                .isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(hold.lost()).isCompleted();
        assertThat(hold.lost().toCompletableFuture().join().getMessage())
                .contains("released when the lock factory closed after waiting PT0.3S");
        assertThat(other.tryAcquire(NAME))
                .as("free for others after the drain")
                .isPresent()
                .get()
                .satisfies(LockHandle::close);
        assertThatThrownBy(hold::release).isInstanceOf(LockLostException.class);
    }

    @Test
    @DisplayName("a thread that holds a lock may lock it again while the factory drains")
    void threadLockReentryWhileDraining() throws Exception {
        DistributedLock lock = closing.getLock(NAME);
        CountDownLatch reentered = new CountDownLatch(1);
        CountDownLatch closeStarted = new CountDownLatch(1);
        CompletableFuture<Void> worker = CompletableFuture.runAsync(
                () -> {
                    lock.lock();
                    try {
                        closeStarted.await();
                        await().atMost(Duration.ofSeconds(10))
                                .untilAsserted(() -> assertThatThrownBy(() -> closing.tryAcquire("x"))
                                        .isInstanceOf(LockException.class));
                        lock.lock();
                        lock.unlock();
                        reentered.countDown();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        lock.unlock();
                    }
                },
                threads);
        await().atMost(Duration.ofSeconds(10)).until(lock::isLocked);
        CompletableFuture<Void> closed =
                CompletableFuture.runAsync(() -> closing.close(Duration.ofSeconds(30)), threads);
        closeStarted.countDown();
        worker.get(10, TimeUnit.SECONDS);
        assertThat(reentered.getCount()).isZero();
        closed.get(10, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("a negative or null drain time is refused, naming the argument")
    void badDrainTimeIsRefused() {
        assertThatThrownBy(() -> closing.close(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("drainTime");
        assertThatThrownBy(() -> closing.close(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("drainTime");
    }
}
