package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Inspection" ({@link LockContractTest.Inspection}): the provider's inspect follows reentry,
 * release and the lease, without blocking its client.
 */
abstract class InspectionContract extends ContractGroup {

    InspectionContract(LockContractTest kit) {
        super(kit);
    }

    @BeforeEach
    void requireInspection() {
        assume(Capability.INSPECTION);
    }

    /** A provider of its own for raw inspect calls, closed after the test. */
    private LockProvider inspector() {
        LockProvider p = provider();
        closeAfterTest(DistributedLockFactory.create(p));
        return p;
    }

    private List<Integer> holdCounts(LockProvider p, String name) {
        return p.inspect(name).map(s -> List.copyOf(s.holdCounts().values())).orElse(List.of());
    }

    @Test
    @DisplayName("inspect follows reentry and release: one owner with the hold count of the moment")
    void inspectionFollowsReentryAndRelease() throws Exception {
        String name = name();
        LockProvider p = inspector();
        DistributedLock lock = client().getLock(name);
        lock.lock();
        assertThat(holdCounts(p, name)).as("hold counts after one acquisition").containsExactly(1);
        lock.lock();
        lock.lock();
        assertThat(holdCounts(p, name)).as("hold counts after two reentries").containsExactly(3);
        lock.unlock();
        assertThat(holdCounts(p, name)).as("hold counts after one release").containsExactly(2);
        lock.unlock();
        lock.unlock();
        assertThat(p.inspect(name)).as("after the last release").isEmpty();
    }

    @Test
    @DisplayName("inspect shows the lease of the moment: within what was asked, longer once renewed, gone once lapsed")
    void inspectionFollowsTheLeaseAndItsLapse() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        LockProvider p = inspector();
        Duration lease = scaled(Duration.ofMillis(800));
        LockHandle h = client().acquire(name, leaseOf(lease));
        Duration first = p.inspect(name)
                .orElseThrow(() -> new AssertionError("a held lock inspected as free"))
                .remainingLease();
        assertThat(first)
                .as("remaining lease of a fresh %s lease", lease)
                .isPositive()
                .isLessThanOrEqualTo(lease);
        h.extend(scaled(Duration.ofSeconds(20)));
        Duration renewed = p.inspect(name)
                .orElseThrow(() -> new AssertionError("a renewed lock inspected as free"))
                .remainingLease();
        assertThat(renewed).as("remaining lease after a renewal to 20 s").isGreaterThan(scaled(Duration.ofSeconds(10)));
        h.extend(lease);
        await("the lapse seen by inspect")
                .atMost(scaled(Duration.ofMillis(2500)))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> p.inspect(name).isEmpty());
    }

    @Test
    @DisplayName(
            "inspect neither blocks nor holds up the other calls of its client, nor, once returned, the release of what it inspected")
    void inspectionDoesNotBlockTheClient() throws Exception {
        String held = name();
        LockHandle holder = client().acquire(held, LockOptions.noWait());
        LockProvider p = provider();
        DistributedLockFactory client = DistributedLockFactory.builder(p)
                .defaultOptions(
                        LockOptions.builder().watchdogLease(watchdogLease()).build())
                .build();
        closeAfterTest(client);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong longestInspection = new AtomicLong();
        AtomicLong inspections = new AtomicLong();
        AtomicBoolean seenFree = new AtomicBoolean();
        CountDownLatch inspecting = new CountDownLatch(1);
        Thread t = start("inspector", () -> {
            while (!stop.get()) {
                long start = System.nanoTime();
                boolean locked = client.getLock(held).isLocked();
                longestInspection.accumulateAndGet(System.nanoTime() - start, Math::max);
                inspections.incrementAndGet();
                inspecting.countDown();
                if (!locked) {
                    seenFree.set(true);
                }
            }
        });
        try {
            assertThat(inspecting.await(scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS))
                    .as("a first inspection")
                    .isTrue();
            long longestCall = 0;
            for (int i = 0; i < 20; i++) {
                String name = name() + ":" + i;
                long start = System.nanoTime();
                LockHandle h = client.acquire(name, LockOptions.noWait());
                h.release();
                longestCall = Math.max(longestCall, System.nanoTime() - start);
            }
            assertThat(TimeUnit.NANOSECONDS.toMillis(longestCall))
                    .as("longest acquire and release while another thread inspects")
                    .isLessThan(scaled(Duration.ofMillis(750)).toMillis());
        } finally {
            stop.set(true);
            t.join(scaled(Duration.ofSeconds(10)).toMillis());
        }
        assertThat(t.isAlive()).as("the inspecting thread still running").isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(longestInspection.get()))
                .as("longest inspection of a held lock")
                .isLessThan(scaled(Duration.ofMillis(750)).toMillis());
        assertThat(inspections.get()).isPositive();
        assertThat(seenFree).as("a held lock inspected as free").isFalse();
        // From a thread that never inspected: an inspect that kept a lock of the name (a row lock,
        // a connection's) would hold this release up for good.
        BoundedCalls.within(scaled(Duration.ofSeconds(10)), "the release of a lock inspected on another thread", () -> {
            holder.release();
            return null;
        });
    }
}
