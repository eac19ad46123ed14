package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Closing the factory" ({@link LockContractTest.Closing}): closing releases what the client
 * holds, fails its pending waits and leaves other clients alone.
 */
abstract class ClosingContract extends ContractGroup {

    ClosingContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("closing releases what the client holds")
    void closeReleasesHolds() throws Exception {
        String name = name();
        DistributedLockFactory a = client();
        a.getLock(name).lock();
        LockHandle h = a.acquire(name + ":handle", LockOptions.noWait());
        a.close();
        assertThat(client().getLock(name).tryLock()).isTrue();
        assertThat(client().tryAcquire(name + ":handle")).isPresent();
        assertThat(h.isValid()).isFalse();
    }

    @Test
    @DisplayName("closing fails pending waits promptly")
    void closeFailsPendingWaits() throws Exception {
        String name = name();
        client().getLock(name).lock();
        DistributedLockFactory b = client();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread t = start("waiter", () -> {
            try {
                b.getLock(name).lock();
                outcome.set(new AssertionError("acquired"));
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        Thread.sleep(scaled(Duration.ofMillis(200)).toMillis());
        long closed = System.nanoTime();
        b.close();
        t.join(scaled(Duration.ofSeconds(3)).toMillis());
        assertThat(outcome.get()).isInstanceOf(LockException.class);
        assertThat(millisSince(closed)).isLessThan(scaled(Duration.ofSeconds(3)).toMillis());
    }

    @Test
    @DisplayName("closing twice is harmless, and use after closing throws LockException")
    void useAfterCloseThrows() {
        DistributedLockFactory c = client();
        DistributedLock lock = c.getLock(name());
        c.close();
        assertThatCode(c::close).doesNotThrowAnyException();
        assertThatThrownBy(lock::lock).isInstanceOf(LockException.class);
        assertThatThrownBy(() -> c.tryAcquire(name())).isInstanceOf(LockException.class);
    }

    @Test
    @DisplayName("unlocking after the factory closed throws LockLostException")
    void unlockAfterCloseThrows() {
        DistributedLockFactory c = client();
        DistributedLock lock = c.getLock(name());
        lock.lock();
        c.close();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class).hasMessageContaining("closed");
    }

    @Test
    @DisplayName("closing one client leaves another client's holds alone")
    void closingOneClientLeavesAnotherClientsHoldsAlone() throws Exception {
        String name = name();
        DistributedLockFactory holding = client();
        DistributedLockFactory closing = client();
        DistributedLock lock = holding.getLock(name);
        lock.lock();
        closing.getLock(name + ":closing").lock();
        closing.close();
        assertThat(client().getLock(name).tryLock())
                .as("a third client, after another client closed")
                .isFalse();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThatCode(lock::unlock).doesNotThrowAnyException();
        assertThat(client().getLock(name + ":closing").tryLock())
                .as("the closed client's own lock")
                .isTrue();
    }
}
