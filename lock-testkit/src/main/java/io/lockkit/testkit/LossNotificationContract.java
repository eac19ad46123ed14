package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Loss notification" ({@link LockContractTest.LossNotification}): a holder whose lock lapsed is
 * told, through its handle and the listeners.
 */
abstract class LossNotificationContract extends ContractGroup {

    LossNotificationContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("a handle's lost() completes with the loss when its lease runs out")
    void lostStageCompletesOnExpiry() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        LockHandle h = client().acquire(name, leaseOf(scaled(Duration.ofMillis(300))));
        LockLostException loss =
                h.lost().toCompletableFuture().get(scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(loss.lockName()).isEqualTo(name);
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(loss.fencingToken()).isEqualTo(h.fencingToken());
        }
        assertThat(h.isValid()).isFalse();
    }

    @Test
    @DisplayName("a hold taken from its owner is reported at the next renewal")
    void forceReleaseIsReportedAtTheNextRenewal() throws Exception {
        assume(Capability.FORCE_RELEASE);
        String name = name();
        List<LockLostException> heard = new CopyOnWriteArrayList<>();
        LockHandle h = client(watchdogLease(), heard::add).acquire(name, LockOptions.noWait());
        assertThat(client().getLock(name).forceUnlock()).isTrue();
        LockLostException loss = h.lost()
                .toCompletableFuture()
                .get(watchdogLease().multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(loss.lockName()).isEqualTo(name);
        assertThat(h.isValid()).isFalse();
        assertThat(heard).extracting(LockLostException::lockName).containsExactly(name);
    }

    @Test
    @DisplayName("the factory's loss listener hears of a thread's lapsed hold, and unlock throws")
    void factoryListenerHearsOfThreadLoss() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        List<LockLostException> heard = new CopyOnWriteArrayList<>();
        DistributedLock lock = client(watchdogLease(), heard::add).getLock(name);
        lock.lock(scaled(Duration.ofMillis(300)));
        await().atMost(scaled(Duration.ofSeconds(5))).until(() -> !heard.isEmpty());
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThatThrownBy(lock::unlock)
                .as("after the lost hold was unlocked")
                .isInstanceOf(IllegalMonitorStateException.class)
                .isNotInstanceOf(LockLostException.class);
    }

    @Test
    @DisplayName("a normal release is not reported as a loss")
    void releaseIsNotALoss() throws Exception {
        List<LockLostException> heard = new CopyOnWriteArrayList<>();
        LockHandle h = client(watchdogLease(), heard::add).acquire(name(), LockOptions.noWait());
        h.release();
        Thread.sleep(watchdogLease().toMillis());
        assertThat(h.lost().toCompletableFuture()).isNotDone();
        assertThat(heard).isEmpty();
    }

    @Test
    @DisplayName("closing a lost handle throws LockLostException once")
    void closingALostHandleThrowsOnce() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        LockHandle h = client().acquire(name(), leaseOf(scaled(Duration.ofMillis(200))));
        h.lost().toCompletableFuture().get(scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
        assertThatThrownBy(h::close).isInstanceOf(LockLostException.class);
        assertThatCode(h::close).doesNotThrowAnyException();
    }
}
