package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedSemaphore;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Semaphore" ({@link LockContractTest.LeasedSemaphore}): at most the capacity's permits held at once
 * across clients, counted per hold, each hold with its own token; waiters woken by releases; the
 * watchdog keeps a permit; bad input refused by name with nothing left held. Skipped, visibly,
 * unless the provider declares {@link Capability#SHARED_HOLDS}.
 */
abstract class SemaphoreContract extends ContractGroup {

    SemaphoreContract(LockContractTest kit) {
        super(kit);
    }

    @BeforeEach
    void sharedHoldsDeclared() {
        assume(Capability.SHARED_HOLDS);
    }

    private static Optional<LockHandle> tryTake(DistributedSemaphore s, int permits) throws InterruptedException {
        return s.tryAcquire(permits, LockOptions.noWait());
    }

    @Test
    @DisplayName("holds of several clients add up to the capacity at most, each with its own token")
    void atMostTheCapacityIsHeld() throws Exception {
        String name = name();
        DistributedSemaphore a = steadyClient().getSemaphore(name, 3);
        DistributedSemaphore b = steadyClient().getSemaphore(name, 3);
        LockHandle one = tryTake(a, 1).orElseThrow();
        LockHandle two = tryTake(b, 2).orElseThrow();
        assertThat(tryTake(a, 1)).as("a fourth permit of three").isEmpty();
        assertThat(tryTake(b, 1))
                .as("a fourth permit of three, from the other client")
                .isEmpty();
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(two.fencingToken()).isGreaterThan(one.fencingToken());
        }
        one.release();
        LockHandle three = tryTake(b, 1).orElseThrow();
        assertThat(tryTake(a, 1)).isEmpty();
        two.release();
        three.release();
        assertThat(tryTake(a, 3)).as("all three permits after every release").isPresent();
    }

    @Test
    @DisplayName("permits count per hold, never per client or thread, and a release gives back its own hold's only")
    void permitsCountPerHold() throws Exception {
        DistributedSemaphore s = steadyClient().getSemaphore(name(), 3);
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(tryTake(s, 1).orElseThrow(() -> new AssertionError("a permit of three was refused")));
        }
        assertThat(tryTake(s, 1)).as("a fourth acquisition by the same thread").isEmpty();
        held.get(1).release();
        assertThat(held.get(0).isValid()).isTrue();
        assertThat(held.get(2).isValid()).isTrue();
        LockHandle again = tryTake(s, 1).orElseThrow();
        assertThat(tryTake(s, 1)).isEmpty();
        again.release();
        held.get(0).release();
        held.get(2).release();
    }

    @Test
    @DisplayName("availablePermits counts the holds of every client")
    void availablePermitsCountsEveryClient() throws Exception {
        assume(Capability.INSPECTION);
        String name = name();
        DistributedSemaphore a = steadyClient().getSemaphore(name, 5);
        DistributedSemaphore b = steadyClient().getSemaphore(name, 5);
        assertThat(a.availablePermits()).isEqualTo(5);
        LockHandle two = tryTake(a, 2).orElseThrow();
        LockHandle one = tryTake(b, 1).orElseThrow();
        assertThat(b.availablePermits()).isEqualTo(2);
        two.release();
        assertThat(a.availablePermits()).isEqualTo(4);
        one.release();
        assertThat(a.availablePermits()).isEqualTo(5);
    }

    @Test
    @DisplayName("a waiter for several permits is woken by the releases that free them")
    void aWaiterIsWokenByReleases() throws Exception {
        String name = name();
        DistributedSemaphore holder = steadyClient().getSemaphore(name, 2);
        LockHandle first = tryTake(holder, 1).orElseThrow();
        LockHandle second = tryTake(holder, 1).orElseThrow();
        WaitWatch watch = new WaitWatch(provider());
        DistributedSemaphore waiter = clientOver(watch).getSemaphore(name, 2);
        CompletionStage<LockHandle> both = waiter.acquireAsync(2, waitFor(Duration.ofSeconds(60)));
        await("the waiter waiting").atMost(scaled(Duration.ofSeconds(20))).until(watch::queued);

        first.release();
        assertThat(both.toCompletableFuture().isDone())
                .as("one permit of the two it waits for")
                .isFalse();
        second.release();
        LockHandle h =
                both.toCompletableFuture().get(scaled(Duration.ofSeconds(15)).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(h.isValid()).isTrue();
        assertThat(tryTake(holder, 1)).isEmpty();
        h.release();
    }

    @Test
    @DisplayName(
            "the watchdog keeps a permit past many leases, and a wait for it runs out with LockNotAcquiredException")
    void theWatchdogKeepsAPermit() throws Exception {
        String name = name();
        DistributedSemaphore s = client().getSemaphore(name, 1);
        LockHandle h = tryTake(s, 1).orElseThrow();
        DistributedSemaphore other = steadyClient().getSemaphore(name, 1);
        assertThatThrownBy(() -> other.acquire(
                        1, waitFor(Duration.ofMillis(4 * watchdogLease().toMillis()))))
                .isInstanceOf(LockNotAcquiredException.class);
        assertThat(h.isValid() || h.lost().toCompletableFuture().isDone())
                .as("valid, or its loss reported (a renewal late on a loaded machine)")
                .isTrue();
        h.release();
    }

    @Test
    @DisplayName("bad permits and capacities are refused naming the argument, and leave nothing held or queued")
    @SuppressWarnings("NullAway") // passes null on purpose
    void badInputIsRefusedByName() throws Exception {
        String name = name();
        DistributedLockFactory client = steadyClient();
        DistributedSemaphore s = client.getSemaphore(name, 2);
        assertThatThrownBy(() -> client.getSemaphore(name, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity");
        assertThatThrownBy(() -> s.tryAcquire(0, LockOptions.noWait()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits");
        assertThatThrownBy(() -> s.acquire(3, LockOptions.noWait()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits");
        assertThatThrownBy(() -> s.acquireAsync(-1, LockOptions.noWait()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits");
        assertThatThrownBy(() -> s.acquire(1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("options");
        LockHandle one = tryTake(s, 1).orElseThrow();
        assertThatThrownBy(() -> steadyClient().getSemaphore(name, 5).tryAcquire(3, LockOptions.noWait()))
                .as("more permits than the capacity stored with the name")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits");
        assertThat(tryTake(steadyClient().getSemaphore(name, 2), 1))
                .as("the second permit, after the refusals")
                .isPresent();
        one.release();
    }

    @Test
    @DisplayName("a fair semaphore serves a waiter for all permits before a later waiter for one")
    void aFairSemaphoreServesInArrivalOrder() throws Exception {
        assume(Capability.FAIR_QUEUE);
        String name = name();
        LockHandle held = tryTake(steadyClient().getFairSemaphore(name, 3), 2).orElseThrow();
        WaitWatch watch = new WaitWatch(provider());
        CompletableFuture<LockHandle> big = clientOver(watch)
                .getFairSemaphore(name, 3)
                .acquireAsync(3, waitFor(Duration.ofSeconds(60)))
                .toCompletableFuture();
        await("the waiter for three waiting")
                .atMost(scaled(Duration.ofSeconds(20)))
                .until(watch::queued);

        assertThat(tryTake(steadyClient().getFairSemaphore(name, 3), 1))
                .as("one permit is free, but a waiter for three came first")
                .isEmpty();
        held.release();
        LockHandle all = big.get(scaled(Duration.ofSeconds(15)).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(all.isValid()).isTrue();
        all.release();
    }

    @Test
    @DisplayName("an operator raising the capacity lets a waiter in at once; reducing it keeps the holders")
    void anOperatorChangesTheCapacity() throws Exception {
        String name = name();
        DistributedLockFactory operator = steadyClient();
        DistributedSemaphore s = steadyClient().getSemaphore(name, 2);
        LockHandle a = tryTake(s, 1).orElseThrow();
        LockHandle b = tryTake(s, 1).orElseThrow();
        WaitWatch watch = new WaitWatch(provider());
        CompletableFuture<LockHandle> third = clientOver(watch)
                .getSemaphore(name, 2)
                .acquireAsync(1, waitFor(Duration.ofSeconds(60)))
                .toCompletableFuture();
        await("the third waiting").atMost(scaled(Duration.ofSeconds(20))).until(watch::queued);

        operator.operations().setCapacity(name, 3);
        LockHandle c = third.get(scaled(Duration.ofSeconds(15)).toMillis(), TimeUnit.MILLISECONDS);
        operator.operations().setCapacity(name, 1);
        assertThat(a.isValid() && b.isValid() && c.isValid())
                .as("holders over the reduced capacity keep their permits")
                .isTrue();
        a.release();
        b.release();
        assertThat(tryTake(s, 1)).as("one permit held of one").isEmpty();
        c.release();
        assertThat(tryTake(s, 1)).isPresent();
        assertThatThrownBy(() -> operator.operations().setCapacity(name, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity");
    }
}
