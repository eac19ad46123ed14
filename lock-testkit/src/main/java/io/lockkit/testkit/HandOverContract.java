package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Hand-over to a waiter" ({@link LockContractTest.HandOver}): a lock a release hands to a waiter
 * is valid no longer than the backend holds it for that waiter, and a waiter that gave up does not
 * keep it.
 */
abstract class HandOverContract extends ContractGroup {

    HandOverContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName(
            "a waiter handed the lock by a release is valid on its client no longer than the backend holds it for it")
    void handedOverHoldIsNeverValidLongerThanOnTheBackend() throws Exception {
        // A backend may grant a released lock straight to a waiter of the releasing client,
        // setting the waiter's lease at the release. If the grant is not passed on, the waiter
        // finds it only at its next attempt and counts its lease from then: for a while its
        // client thinks it holds a lock that the backend has already given to someone else.
        assume(Capability.EXPLICIT_LEASE);
        DistributedLockFactory releasing = client();
        assertHandedOverHoldEndsByTheBackendsLease(releasing, releasing, client());
    }

    @Test
    @DisplayName(
            "a waiter of another client handed the lock by a release is valid on its client no longer than the backend holds it for it")
    void handedOverHoldOfAnotherClientIsNeverValidLongerThanOnTheBackend() throws Exception {
        // A backend may grant a released lock straight to a waiter of another client and tell
        // that client (WakeUpListener.granted), whose core counts the lease from the waiter's
        // latest attempt. If the backend sets a shorter lease than it announces, or answers an
        // attempt of the granted wait "busy", that client thinks it holds a lock the backend has
        // already let go.
        assume(Capability.EXPLICIT_LEASE);
        assertHandedOverHoldEndsByTheBackendsLease(client(), client(), client());
    }

    /**
     * A waiter of {@code waiting} gets the lock {@code releasing} releases, with an explicit lease;
     * {@code prober} tries the lock until the waiter's handle is invalid: it must get in only then.
     */
    private void assertHandedOverHoldEndsByTheBackendsLease(
            DistributedLockFactory releasing, DistributedLockFactory waiting, DistributedLockFactory prober)
            throws Exception {
        String name = name();
        Duration lease = scaled(Duration.ofSeconds(1));
        LockHandle first = releasing.acquire(name, leaseOf(lease));
        java.util.concurrent.CompletableFuture<LockHandle> handedOver = new java.util.concurrent.CompletableFuture<>();
        start("waiter", () -> {
            try {
                handedOver.complete(waiting.acquire(
                        name,
                        LockOptions.builder()
                                .waitAtMost(scaled(Duration.ofSeconds(10)))
                                .lease(lease)
                                .build()));
            } catch (Throwable e) {
                handedOver.completeExceptionally(e);
            }
        });
        // Not a wait for a condition: the release must come well before the waiter's retry hint
        // (the rest of the first lease), so that a grant it is not told of shows.
        Thread.sleep(lease.toMillis() * 3 / 10);
        first.release();
        LockHandle second = handedOver.get(scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
        long probes = 0;
        Optional<LockHandle> intruder = Optional.empty();
        while (second.isValid()) {
            probes++;
            intruder = prober.tryAcquire(name);
            if (intruder.isPresent()) {
                boolean grantStillValid = second.isValid();
                intruder.get().release();
                assertThat(grantStillValid)
                        .as(
                                "another client took the lock while the waiter it was handed to still held it (probe %d)",
                                probes)
                        .isFalse();
                break;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        assertThat(probes)
                .as("the other client probed while the waiter held the lock")
                .isPositive();
        // The hold ends with its lease, and the lock is free for others then.
        await().atMost(scaled(Duration.ofSeconds(3))).until(() -> {
            Optional<LockHandle> h = prober.tryAcquire(name);
            h.ifPresent(LockHandle::release);
            return h.isPresent();
        });
    }

    @Test
    @DisplayName(
            "a waiter of the holder's own client that gave up does not keep the lock from another client after the release")
    void abandonedWaiterOfTheHoldersClientDoesNotKeepTheLock() throws Exception {
        String name = name();
        DistributedLockFactory holding = client();
        DistributedLockFactory other = client();
        LockHandle held = holding.acquire(name, LockOptions.noWait());
        Optional<LockHandle> gaveUp =
                returnsWithin(Duration.ofSeconds(5), () -> holding.tryAcquire(name, waitFor(Duration.ofMillis(300))));
        assertThat(gaveUp).as("a wait on a held lock").isEmpty();
        held.release();
        Optional<LockHandle> next = other.tryAcquire(name);
        assertThat(next).as("another client right after the release").isPresent();
        next.get().release();
    }

    @Test
    @DisplayName("the abandon of a wait leaves alone the hold its owner took in another wait, or outside one")
    void abandonOfAnotherWaitLeavesTheOwnersHoldAlone() {
        LockProvider p = closeAfterTest(provider());
        Duration lease = scaled(Duration.ofSeconds(20));
        String owner = RenewalContract.newClient() + ":t1";
        String other = RenewalContract.newClient() + ":t1";
        for (long heldIn : new long[] {0, 7}) {
            String name = name();
            assertThat(p.tryAcquire(new LockRequest(name, owner, lease, heldIn == 0 ? Duration.ZERO : lease, heldIn))
                            .isAcquired())
                    .as("a free lock taken in wait %d", heldIn)
                    .isTrue();
            p.abandon(name, owner, 8); // a later wait of the same owner that ended without the lock
            assertThat(p.tryAcquire(new LockRequest(name, other, lease, Duration.ZERO))
                            .isAcquired())
                    .as("another owner, after the abandon of a wait the hold was not taken in")
                    .isFalse();
            assertThat(p.release(name, owner).outcome())
                    .as("the owner's release of the hold it took in wait %d", heldIn)
                    .isEqualTo(Release.Outcome.RELEASED);
        }
    }

    @Test
    @DisplayName("a force release frees a lock that a release handed to a waiter and the waiter has not claimed yet")
    void forceReleaseFreesALockHandedToAWaiter() {
        assume(Capability.FORCE_RELEASE);
        String name = name();
        LockProvider holding = closeAfterTest(provider());
        LockProvider waiting = closeAfterTest(provider());
        LockProvider third = closeAfterTest(provider());
        Duration lease = scaled(Duration.ofSeconds(20));
        String holder = RenewalContract.newClient() + ":h1";
        String waiter = RenewalContract.newClient() + ":h1";
        assertThat(holding.tryAcquire(new LockRequest(name, holder, lease, Duration.ZERO))
                        .isAcquired())
                .isTrue();
        assertThat(waiting.tryAcquire(new LockRequest(name, waiter, lease, lease, 1))
                        .isAcquired())
                .as("a waiter of another client, queued")
                .isFalse();
        assertThat(holding.release(name, holder).outcome()).isEqualTo(Release.Outcome.RELEASED);
        third.forceRelease(name); // held for the waiter, or already free: either way free after
        assertThat(third.tryAcquire(new LockRequest(name, RenewalContract.newClient() + ":h1", lease, Duration.ZERO))
                        .isAcquired())
                .as("another client right after the force release")
                .isTrue();
        waiting.abandon(name, waiter, 1);
    }

    @Test
    @DisplayName(
            "a lock a release grants to a waiter of its own client is held for the waiter's lease, and the wait's next attempt takes that hold without raising its count")
    void aGrantToAWaiterOfTheReleasingClientIsTheWaitersOneHold() {
        // A backend may make the waiter the holder in the release itself (Release.grantedTo): the
        // core then passes the token on without a call and counts the waiter's lease from the
        // release, so the backend must keep the lock for that lease (not for a hand-over's claim
        // time, nor for what was left of the releaser's), and an attempt of that wait still on its
        // way must take the same hold, or the waiter's one release would leave the lock held.
        assume(Capability.EXPLICIT_LEASE);
        LockProvider p = closeAfterTest(provider());
        String name = name();
        String client = RenewalContract.newClient();
        String holder = client + ":h1";
        String waiter = client + ":h2";
        Duration lease = scaled(Duration.ofSeconds(30));
        LockRequest waiting = new LockRequest(name, waiter, lease, lease, 7);
        assertThat(p.tryAcquire(new LockRequest(name, holder, scaled(Duration.ofSeconds(3)), Duration.ZERO))
                        .isAcquired())
                .isTrue();
        assertThat(p.tryAcquire(waiting).isAcquired())
                .as("the waiter's first attempt")
                .isFalse();
        Release released = p.release(name, holder);
        assertThat(released.outcome()).isEqualTo(Release.Outcome.RELEASED);
        if (released.granted()) {
            assertThat(released.grantee()).as("the grantee").isEqualTo(waiter);
            assertThat(released.grantWaitId()).as("the granted wait").isEqualTo(7);
            assertHeldFor(p, name, waiter, lease, "granted by the release");
        }
        Acquisition taken = p.tryAcquire(waiting);
        assertThat(taken.isAcquired())
                .as("the waiter's next attempt of the same wait")
                .isTrue();
        if (released.granted() && has(Capability.FENCING_TOKENS)) {
            assertThat(taken.fencingToken()).as("the token of the grant").isEqualTo(released.grantToken());
        }
        assertHeldFor(p, name, waiter, lease, "taken by the wait's attempt");
        assertThat(p.release(name, waiter).outcome())
                .as("the waiter's one release of the lock it holds once")
                .isEqualTo(Release.Outcome.RELEASED);
        assertThat(p.tryAcquire(new LockRequest(name, RenewalContract.newClient() + ":h1", lease, Duration.ZERO))
                        .isAcquired())
                .as("another client after the waiter's release")
                .isTrue();
    }

    /** With inspection: {@code name} is held once by {@code owner}, for more than half of {@code lease}. */
    private void assertHeldFor(LockProvider p, String name, String owner, Duration lease, String how) {
        if (!has(Capability.INSPECTION)) {
            return;
        }
        LockProvider.LockState state = p.inspect(name).orElseThrow(() -> new AssertionError(name + " is free"));
        assertThat(state.holdCounts()).as("the holder of the lock %s", how).isEqualTo(java.util.Map.of(owner, 1));
        assertThat(state.remainingLease())
                .as("the lease left on the lock %s, for a waiter that asked for %s", how, lease)
                .isGreaterThan(lease.dividedBy(2));
    }
}
