package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The factory's conveniences, its exceptions, and what closing it and ending waits leave behind. */
class DistributedLockFactoryTest {

    private static final String NAME = "orders:42";
    private static final LockOptions BRIEFLY = LockOptions.waitAtMost(Duration.ofSeconds(5));

    private final LocalLockProvider backend = new LocalLockProvider();
    private final DistributedLockFactory locks = DistributedLockFactory.create(backend);
    private final LocalLockProvider otherProvider = backend.newClient();
    private final DistributedLockFactory other = DistributedLockFactory.builder(otherProvider)
            .subscriptionLinger(Duration.ZERO)
            .build();

    @AfterEach
    void close() {
        locks.close();
        other.close();
    }

    /** Thrown by the work under the lock in these tests: a checked exception of the caller's own. */
    static final class ShipmentException extends Exception {
        private static final long serialVersionUID = 1L;

        ShipmentException(String message) {
            super(message);
        }
    }

    @Test
    void callWithLockReturnsTheResultAndHoldsTheLockMeanwhile() throws InterruptedException {
        String result = locks.callWithLock(NAME, BRIEFLY, () -> {
            assertThat(other.tryAcquire(NAME)).as("busy for another client").isEmpty();
            return "shipped";
        });

        assertThat(result).isEqualTo("shipped");
        assertThat(other.tryAcquire(NAME)).as("released afterwards").isPresent();
    }

    @Test
    void callWithLockReleasesWhenTheActionThrows() {
        IllegalStateException failure = new IllegalStateException("out of stock");

        assertThatThrownBy(() -> locks.callWithLock(NAME, BRIEFLY, () -> {
                    throw failure;
                }))
                .isSameAs(failure)
                .hasNoSuppressedExceptions();

        assertThat(other.tryAcquire(NAME)).isPresent();
    }

    @Test
    void callWithLockLetsTheActionsCheckedExceptionTypeThrough() throws InterruptedException {
        try {
            // No cast and no wrapping: the compiler knows the action throws ShipmentException.
            locks.<Void, ShipmentException>callWithLock(NAME, BRIEFLY, () -> {
                throw new ShipmentException("carrier refused");
            });
            fail("the action's exception should have been thrown");
        } catch (ShipmentException e) {
            assertThat(e).hasMessage("carrier refused");
        }
        assertThat(other.tryAcquire(NAME)).isPresent();
    }

    @Test
    void callWithLockDoesNotRunTheActionWhenTheLockStaysBusy() throws InterruptedException {
        try (LockHandle held = other.acquire(NAME, LockOptions.noWait())) {
            AtomicBoolean ran = new AtomicBoolean();

            assertThatThrownBy(() -> locks.callWithLock(
                            NAME, LockOptions.waitAtMost(Duration.ofMillis(50)), () -> ran.getAndSet(true)))
                    .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> {
                        assertThat(e.lockName()).isEqualTo(NAME);
                        assertThat(e.waited()).isEqualTo(Duration.ofMillis(50));
                    });
            assertThat(ran).isFalse();
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void runWithLockRunsTheActionUnderTheLock() throws InterruptedException {
        AtomicBoolean busyMeanwhile = new AtomicBoolean();

        locks.runWithLock(
                NAME, BRIEFLY, () -> busyMeanwhile.set(backend.inspect(NAME).isPresent()));

        assertThat(busyMeanwhile).isTrue();
        assertThat(backend.inspect(NAME)).isEmpty();
        assertThatThrownBy(() -> locks.runWithLock(NAME, BRIEFLY, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("action");
    }

    @Test
    void lockExceptionCarriesTheLockName() {
        LockException named = new LockException(NAME, "backend timed out");
        LockException unnamed = new BackendUnavailableException(null, "backend timed out", null);

        assertThat(named.lockName()).isEqualTo(NAME);
        assertThat(named).hasMessage("backend timed out (lock 'orders:42')");
        assertThat(unnamed.lockName()).isNull();
        assertThat(unnamed).hasMessage("backend timed out").isInstanceOf(LockException.class);
        assertThat(new LockLostException(NAME, 7, "evicted"))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessage("lock lost: evicted (lock 'orders:42', token 7)");
    }

    @Test
    void messagesAbbreviateVeryLongNamesButKeepThemWhole() {
        String longName = "n".repeat(8192);
        try (LockHandle held = other.tryAcquire(longName).orElseThrow()) {
            assertThatThrownBy(() -> locks.acquire(longName, LockOptions.noWait()))
                    .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> {
                        assertThat(e.lockName()).isEqualTo(longName);
                        assertThat(e.getMessage()).hasSizeLessThan(300).contains("…[8192 chars]");
                    });
            assertThat(held.toString()).hasSizeLessThan(300);
        }
        assertThatThrownBy(() -> locks.getLock(longName).unlock())
                .isExactlyInstanceOf(IllegalMonitorStateException.class)
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(300).contains("…[8192 chars]"));
        assertThat(new LockLostException(longName, 1, "evicted").getMessage()).hasSizeLessThan(300);
        assertThat(new LockException("n".repeat(200), "x").getMessage())
                .as("200 chars are kept whole")
                .contains("n".repeat(200) + "'");
    }

    @Test
    void closingTheFactoryFailsAWaitingThreadPromptly() throws Exception {
        locks.acquire(NAME, LockOptions.noWait());
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(
                () -> {
                    try {
                        other.acquire(NAME).close();
                        outcome.complete(null);
                    } catch (Throwable e) {
                        outcome.complete(e);
                    }
                },
                "waiter");
        waiter.setDaemon(true);
        waiter.start();
        // Subscribed, and parked until the holder's lease (30 s) would run out.
        await().atMost(Duration.ofSeconds(5))
                .until(() -> otherProvider.subscriptions() == 1 && waiter.getState() == Thread.State.TIMED_WAITING);

        other.close();

        Throwable failure = outcome.get(2, TimeUnit.SECONDS);
        assertThat(failure).isExactlyInstanceOf(LockException.class).hasMessageContaining("closed");
        assertThat(((LockException) failure).lockName()).isEqualTo(NAME);
        assertThat(otherProvider.subscriptions()).isZero();
        assertThatThrownBy(() -> other.acquire(NAME, LockOptions.noWait())).isInstanceOf(LockException.class);
    }

    @Test
    void subscriptionIsDroppedWhenTheWaitEndsWithTheLock() throws Exception {
        LockHandle held = locks.acquire(NAME, LockOptions.noWait());
        CompletableFuture<LockHandle> taken = CompletableFuture.supplyAsync(() -> {
            try {
                return other.acquire(NAME, BRIEFLY);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> otherProvider.subscriptions() == 1);

        held.release();

        taken.get(5, TimeUnit.SECONDS).close();
        await().atMost(Duration.ofSeconds(2)).until(() -> otherProvider.subscriptions() == 0);
    }

    @Test
    void subscriptionIsDroppedAfterItsLingerWhenTheWaitRunsOut() throws InterruptedException {
        LocalLockProvider provider = backend.newClient();
        try (DistributedLockFactory lingering = DistributedLockFactory.builder(provider)
                        .subscriptionLinger(Duration.ofMillis(100))
                        .build();
                LockHandle held = locks.acquire(NAME, LockOptions.noWait())) {

            assertThatThrownBy(() -> lingering.acquire(NAME, LockOptions.waitAtMost(Duration.ofMillis(50))))
                    .isInstanceOf(LockNotAcquiredException.class);

            await().atMost(Duration.ofSeconds(2)).until(() -> provider.subscriptions() == 0);
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void builderRejectsMissingPartsNamingTheArgument() {
        assertThatThrownBy(() -> DistributedLockFactory.builder(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("provider must not be null");
        DistributedLockFactory.Builder builder = DistributedLockFactory.builder(new LocalLockProvider());
        assertThatThrownBy(() -> builder.ticker(null)).hasMessage("ticker must not be null");
        assertThatThrownBy(() -> builder.scheduler(null)).hasMessage("scheduler must not be null");
        assertThatThrownBy(() -> builder.threadFactory(null)).hasMessage("threadFactory must not be null");
        assertThatThrownBy(() -> builder.defaultOptions(null)).hasMessage("defaultOptions must not be null");
        assertThatThrownBy(() -> builder.onLockLost(null)).hasMessage("lossListener must not be null");
        assertThatThrownBy(() -> builder.subscriptionLinger(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("subscriptionLinger ");
        assertThatThrownBy(() -> builder.subscriptionLinger(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("subscriptionLinger ");
    }
}
