package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Direct grants: a release that hands the lock straight to a waiter of the same client is passed on
 * to that waiter, whatever became of the releasing hold, and the waiter's lease runs from the
 * release.
 */
class HandOverTest {

    private static final String NAME = "orders:7";
    /** The client's lease; the backend keeps every hold ten times longer, so a hold can be lost here and held there. */
    private static final Duration LEASE = Duration.ofMillis(200);

    private final GrantingProvider provider = new GrantingProvider(new LocalLockProvider());
    private final DistributedLockFactory locks = DistributedLockFactory.builder(provider)
            .subscriptionLinger(Duration.ZERO)
            .build();

    @AfterEach
    void close() {
        locks.close();
    }

    @Test
    void releasingAHoldAlreadyLostPassesTheGrantOnToTheWaiter() throws Exception {
        LockHandle first =
                locks.acquire(NAME, LockOptions.builder().noWait().lease(LEASE).build());
        CompletableFuture<LockHandle> second = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                second.complete(locks.acquire(
                        NAME,
                        LockOptions.builder()
                                .waitAtMost(Duration.ofSeconds(10))
                                .lease(LEASE)
                                .build()));
            } catch (Throwable e) {
                second.completeExceptionally(e);
            }
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> provider.waiting.containsKey(NAME));
        // The first hold lapses on this client while the backend (ten leases) still has it.
        await().atMost(Duration.ofSeconds(5))
                .until(() -> first.lost().toCompletableFuture().isDone());

        long released = System.nanoTime();
        assertThatThrownBy(first::release).isInstanceOf(LockLostException.class);
        long afterRelease = System.nanoTime();
        assertThat(provider.grants)
                .as("the backend granted the lock to the waiter")
                .hasSize(1);

        // The waiter is told at once; left alone it would find the grant only at its retry hint,
        // the rest of the backend's ten leases.
        LockHandle handedOver = second.get(5, TimeUnit.SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released))
                .as("ms until the waiter had the lock")
                .isLessThan(1000);
        assertThat(provider.attemptsMeetingAGrant)
                .as("attempts that found the grant themselves")
                .isZero();
        // Its lease runs from the release, not from when the waiter woke.
        long before = System.nanoTime();
        assertThat(handedOver.remainingLease()).isLessThanOrEqualTo(LEASE.minusNanos(before - afterRelease));
        handedOver.release();
    }

    /**
     * Over an in-JVM backend whose holds last ten times the requested lease, grants a released lock
     * outright to the waiting owner of the releasing client (as the Redis provider does), says so in
     * the release's answer, and sends no wake-up for it.
     */
    static final class GrantingProvider extends ForwardingLockProvider {
        final Map<String, LockRequest> waiting = new ConcurrentHashMap<>();
        final Map<String, Long> grants = new ConcurrentHashMap<>();
        private final AtomicBoolean granting = new AtomicBoolean();
        volatile int attemptsMeetingAGrant;

        GrantingProvider(LockProvider delegate) {
            super(delegate);
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            Long granted = grants.remove(request.name() + " " + request.owner() + " " + request.waitId());
            if (granted != null) {
                attemptsMeetingAGrant++;
                delegate()
                        .renew(List.of(new Renewal(
                                request.name(), request.owner(), request.lease().multipliedBy(10))));
                return Acquisition.acquired(granted);
            }
            Acquisition a = delegate()
                    .tryAcquire(new LockRequest(
                            request.name(),
                            request.owner(),
                            request.lease().multipliedBy(10),
                            request.maxWait(),
                            request.waitId()));
            if (!a.isAcquired() && request.waiting()) {
                waiting.put(request.name(), request);
            }
            return a;
        }

        @Override
        public Release release(String name, String owner) {
            granting.set(true);
            Release r;
            try {
                r = delegate().release(name, owner);
            } finally {
                granting.set(false);
            }
            LockRequest next = waiting.remove(name);
            if (r.outcome() != Release.Outcome.RELEASED || next == null) {
                return r;
            }
            Acquisition a = delegate()
                    .tryAcquire(new LockRequest(name, next.owner(), next.lease().multipliedBy(10), Duration.ZERO));
            if (!a.isAcquired()) {
                return r;
            }
            grants.put(name + " " + next.owner() + " " + next.waitId(), a.fencingToken());
            return Release.grantedTo(next.owner(), a.fencingToken(), next.waitId());
        }

        @Override
        public void abandon(String name, String owner, long waitId) {
            waiting.computeIfPresent(name, (n, r) -> r.owner().equals(owner) ? null : r);
            if (grants.remove(name + " " + owner + " " + waitId) != null) {
                delegate().release(name, owner);
            }
        }

        @Override
        public Subscription subscribe(String name, WakeUpListener listener) {
            return delegate().subscribe(name, new WakeUpListener() {
                @Override
                public void released(String grantee) {
                    if (!granting.get()) {
                        listener.released(grantee);
                    }
                }

                @Override
                public void missedNotifications() {
                    listener.missedNotifications();
                }
            });
        }
    }
}
