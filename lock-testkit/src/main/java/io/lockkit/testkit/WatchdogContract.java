package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Watchdog renewal" ({@link LockContractTest.Watchdog}): a hold without a lease is renewed past
 * its lease, and renewal stops with the release.
 */
abstract class WatchdogContract extends ContractGroup {

    WatchdogContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("a hold without a lease outlives three watchdog leases")
    void holdOutlivesThreeWatchdogLeases() throws Exception {
        String name = name();
        DistributedLock lock = client().getLock(name);
        lock.lock();
        long token = has(Capability.FENCING_TOKENS) ? lock.fencingToken() : 0;
        Thread.sleep(watchdogLease()
                .multipliedBy(3)
                .plus(scaled(Duration.ofMillis(300)))
                .toMillis());
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(client().getLock(name).tryLock())
                .as("another client after 3 leases")
                .isFalse();
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(lock.fencingToken()).isEqualTo(token);
        }
        assertThatCode(lock::unlock).doesNotThrowAnyException();
    }

    @Test
    @DisplayName("a handle without a lease stays valid past its watchdog lease")
    void handleStaysValidPastItsWatchdogLease() throws Exception {
        String name = name();
        LockHandle h = client().acquire(name, LockOptions.noWait());
        Thread.sleep(watchdogLease().multipliedBy(2).toMillis());
        assertThat(h.isValid()).isTrue();
        assertThat(h.remainingLease()).isPositive();
        assertThat(client().tryAcquire(name)).isEmpty();
        h.close();
    }

    @Test
    @DisplayName("release stops renewal: the backend sees no renewal of a released hold")
    void releaseStopsRenewal() throws Exception {
        String name = name();
        CountingLockProvider recording = new CountingLockProvider(provider());
        DistributedLockFactory client = DistributedLockFactory.builder(recording)
                .defaultOptions(
                        LockOptions.builder().watchdogLease(watchdogLease()).build())
                .build();
        closeAfterTest(client);
        DistributedLock lock = client.getLock(name);
        lock.lock();
        await().atMost(watchdogLease().multipliedBy(2)).until(() -> recording.renewalsOf(name) > 0);
        lock.unlock();
        long after = recording.renewalsOf(name);
        Thread.sleep(watchdogLease().toMillis());
        assertThat(recording.renewalsOf(name)).as("renewals after release").isLessThanOrEqualTo(after + 1);
    }

    @Test
    @DisplayName("the watchdog renews many holds of one client")
    void watchdogRenewsManyHolds() throws Exception {
        DistributedLockFactory a = client();
        DistributedLockFactory b = client();
        List<LockHandle> handles = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String n = name() + ":" + i;
            names.add(n);
            handles.add(a.acquire(n, LockOptions.noWait()));
        }
        Thread.sleep(watchdogLease().multipliedBy(2).toMillis());
        assertThat(handles).allMatch(LockHandle::isValid);
        for (String n : names) {
            assertThat(b.tryAcquire(n)).as(n).isEmpty();
        }
    }
}
