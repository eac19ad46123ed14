package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("releaseAfter: a hold left to lapse later keeps everyone out until then")
class ReleaseAfterTest {

    private static final String NAME = "report:daily";

    private final LocalLockProvider backend = new LocalLockProvider();
    private final DistributedLockFactory locks = DistributedLockFactory.create(backend);
    private final DistributedLockFactory other = DistributedLockFactory.create(backend.newClient());

    @AfterEach
    void closeAll() {
        locks.close();
        other.close();
    }

    @Test
    @DisplayName("the lock stays busy for the delay, then is free; the handle counts as released at once")
    void lockStaysBusyForTheDelay() throws Exception {
        LockHandle hold = locks.acquire(NAME);
        long releasedAt = System.nanoTime();
        hold.releaseAfter(Duration.ofMillis(600));
        assertThat(hold.holdCount()).isZero();
        assertThat(other.tryAcquire(NAME)).as("still busy right after").isEmpty();
        assertThat(locks.tryAcquire(NAME))
                .as("busy for another handle of the same client too")
                .isEmpty();
        Optional<LockHandle> next = other.tryAcquire(NAME, LockOptions.waitAtMost(Duration.ofSeconds(10)));
        assertThat(next).isPresent();
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isGreaterThanOrEqualTo(Duration.ofMillis(550));
        assertThat(next.get().fencingToken()).isGreaterThan(hold.fencingToken());
        next.get().close();
        assertThat(hold.lost()).as("a deferred release is no loss").isNotDone();
        assertThatThrownBy(hold::release).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("a watchdog hold stops being renewed once its release is deferred")
    void watchdogStopsRenewing() throws Exception {
        LockHandle hold = locks.acquire(
                NAME,
                LockOptions.builder().watchdogLease(Duration.ofMillis(300)).build());
        hold.releaseAfter(Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> other.tryAcquire(NAME)
                        .map(h -> {
                            h.close();
                            return true;
                        })
                        .orElse(false));
    }

    @Test
    @DisplayName("with a reentrant count left, or no delay, it is a plain release")
    void reentrantOrZeroIsAPlainRelease() throws Exception {
        LockHandle hold = locks.acquire(NAME);
        hold.acquireAgain();
        hold.releaseAfter(Duration.ofSeconds(30));
        assertThat(hold.holdCount()).isEqualTo(1);
        hold.releaseAfter(Duration.ZERO);
        assertThat(other.tryAcquire(NAME)).isPresent().get().satisfies(LockHandle::close);
    }

    @Test
    @DisplayName("a negative or null delay is refused, naming the argument")
    void badDelayIsRefused() throws Exception {
        try (LockHandle hold = locks.acquire(NAME)) {
            assertThatThrownBy(() -> hold.releaseAfter(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("delay");
            assertThatThrownBy(() -> hold.releaseAfter(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("delay");
        }
    }
}
