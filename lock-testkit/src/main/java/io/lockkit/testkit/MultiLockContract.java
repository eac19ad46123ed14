package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.MultiLockHandle;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Several locks at once" ({@link LockContractTest.MultiLock}): {@code acquireAll} holds every member
 * against other clients with a token each, leaves nothing held or queued when a member stays busy,
 * never deadlocks under opposite orders, and reports the loss of any member on its one handle.
 * The multi-lock is the core's, over the provider's single locks: what these tests judge of a
 * provider is that a failed member's wait leaves its queue, and that names held together stay
 * independent.
 */
abstract class MultiLockContract extends ContractGroup {

    MultiLockContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName(
            "a multi-lock holds every member against other clients, each with a token above the name's earlier ones")
    void holdsEveryMemberWithItsOwnToken() throws Exception {
        String base = name();
        List<String> names = List.of(base + ":c", base + ":a", base + ":b");
        DistributedLockFactory other = client();
        Map<String, Long> earlier = new java.util.HashMap<>();
        for (String name : names) {
            try (LockHandle h = other.acquire(name, LockOptions.noWait())) {
                earlier.put(name, has(Capability.FENCING_TOKENS) ? h.fencingToken() : 0L);
            }
        }
        try (MultiLockHandle all = client().acquireAll(names, waitFor(Duration.ofSeconds(5)))) {
            assertThat(all.names()).containsExactly(base + ":a", base + ":b", base + ":c");
            for (String name : names) {
                assertThat(other.tryAcquire(name))
                        .as("%s is held by the multi-lock", name)
                        .isEmpty();
                if (has(Capability.FENCING_TOKENS)) {
                    assertThat(all.fencingToken(name)).isGreaterThan(earlier.get(name));
                }
            }
        }
        for (String name : names) {
            freeForOtherWithin(other, name, Duration.ofSeconds(1), System.nanoTime(), name + " free after close");
        }
    }

    @Test
    @DisplayName("a member still busy at the end of the wait leaves nothing held or queued")
    void aBusyMemberLeavesNothingHeldOrQueued() throws Exception {
        String base = name();
        String a = base + ":a";
        String b = base + ":b";
        String c = base + ":c";
        // A steady holder: a loaded machine's late renewal must not free the busy member.
        LockHandle busy = steadyClient().acquire(b, LockOptions.noWait());

        long start = System.nanoTime();
        Optional<MultiLockHandle> all = client().tryAcquireAll(List.of(a, b, c), waitFor(Duration.ofMillis(300)));

        assertThat(all).isEmpty();
        assertThat(millisSince(start))
                .as("waited out its wait")
                .isGreaterThanOrEqualTo(scaled(Duration.ofMillis(300)).toMillis());
        DistributedLockFactory third = client();
        // A member left held stays held (the watchdog renews it): any bound tells.
        freeForOtherWithin(third, a, Duration.ofSeconds(5), start, "the member taken before the busy one is free");
        freeForOtherWithin(third, c, Duration.ofSeconds(5), start, "the member after the busy one is free");
        busy.release();
        if (has(Capability.INSPECTION)) {
            // Released with nobody waiting: free at once, not handed to the wait that gave up.
            assertThat(third.operations().inspect(b))
                    .as("the busy member once released, with the multi-lock's wait left behind")
                    .isEmpty();
            freeForOtherWithin(
                    third, b, Duration.ofSeconds(5), System.nanoTime(), "the busy member is free once released");
        } else {
            // Well within any backend's claim timeout for a hand-over to the wait that gave up.
            freeForOtherWithin(
                    third, b, Duration.ofSeconds(1), System.nanoTime(), "the busy member is free once released");
        }
    }

    @Test
    @DisplayName("two clients taking the same names in opposite orders never deadlock")
    void oppositeOrdersNeverDeadlock() throws Exception {
        String base = name();
        List<String> forward = List.of(base + ":1", base + ":2", base + ":3");
        List<String> backward = List.of(base + ":3", base + ":2", base + ":1");
        AtomicInteger taken = new AtomicInteger();
        List<Runnable> tasks = new ArrayList<>();
        for (List<String> order : List.of(forward, backward, forward, backward)) {
            DistributedLockFactory client = steadyClient();
            tasks.add(() -> {
                for (int i = 0; i < 10; i++) {
                    try (MultiLockHandle all = client.acquireAll(order, waitFor(Duration.ofSeconds(30)))) {
                        taken.incrementAndGet();
                        assertThat(all.isValid()).isTrue();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new AssertionError("interrupted", e);
                    }
                }
            });
        }
        runAll(tasks, Duration.ofSeconds(60));
        assertThat(taken).hasValue(40);
    }

    @Test
    @DisplayName("the loss of any member is reported on the one handle, and releasing it frees the others")
    void theLossOfAnyMemberIsReportedOnTheHandle() throws Exception {
        assume(Capability.FORCE_RELEASE);
        String base = name();
        DistributedLockFactory holder = steadyClient();
        MultiLockHandle all = holder.acquireAll(List.of(base + ":a", base + ":b"), waitFor(Duration.ofSeconds(5)));

        assertThat(holder.getLock(base + ":b").forceUnlock()).isTrue();

        LockLostException loss = all.lost()
                .toCompletableFuture()
                .get(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(loss.lockName()).isEqualTo(base + ":b");
        assertThat(all.isValid()).isFalse();
        assertThatThrownBy(all::release).isInstanceOf(LockLostException.class);
        freeForOtherWithin(
                client(), base + ":a", Duration.ofSeconds(1), System.nanoTime(), "the member still held is released");
    }

    @Test
    @DisplayName("a member lost while a later one is awaited fails the acquisition as not acquired, not as a loss")
    void aMemberLostWhileALaterOneIsAwaitedFailsAsNotAcquired() throws Exception {
        assume(Capability.FORCE_RELEASE);
        assume(Capability.INSPECTION);
        String base = name();
        String a = base + ":a";
        String b = base + ":b";
        LockHandle busy = steadyClient().acquire(b, LockOptions.noWait());
        DistributedLockFactory operator = client();
        long deadline = System.nanoTime() + scaled(Duration.ofSeconds(10)).toNanos();
        // An operator frees the first member while the multi-lock waits for the second.
        CompletableFuture<Boolean> forced = CompletableFuture.supplyAsync(() -> {
            while (operator.operations().inspect(a).isEmpty() && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            return operator.operations().forceRelease(a);
        });

        // The caller never had the lost member: the wait fails as any busy one does (no
        // acquisition's contract allows a LockLostException).
        assertThatThrownBy(() -> client().acquireAll(List.of(a, b), waitFor(Duration.ofMillis(1500))))
                .isInstanceOf(LockNotAcquiredException.class)
                .hasMessageContaining(b);
        assertThat(forced.get(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS))
                .as("%s was freed by the operator under the waiting multi-lock", a)
                .isTrue();
        freeForOtherWithin(operator, a, Duration.ofSeconds(5), System.nanoTime(), "nothing of the multi-lock is held");
        busy.release();
    }
}
