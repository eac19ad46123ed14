package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link DistributedLockFactory#acquireAll}: all or none, one wait, no deadlock, any member's loss reported. */
class MultiLockTest {

    private final LocalLockProvider backend = new LocalLockProvider();
    private final DistributedLockFactory locks = DistributedLockFactory.create(backend);
    private final DistributedLockFactory other = DistributedLockFactory.create(backend.newClient());

    @AfterEach
    void close() {
        locks.close();
        other.close();
    }

    @Test
    void takesEveryNameInAscendingOrderWithATokenEach() throws Exception {
        try (MultiLockHandle all = locks.acquireAll(List.of("stock:b", "stock:c", "stock:a"))) {
            assertThat(all.names()).containsExactly("stock:a", "stock:b", "stock:c");
            assertThat(all.isValid()).isTrue();
            for (String name : all.names()) {
                assertThat(other.tryAcquire(name)).as("%s is held", name).isEmpty();
                assertThat(all.fencingToken(name)).isPositive();
            }
            assertThat(all.members()).extracting(LockHandle::name).isEqualTo(all.names());
            assertThatThrownBy(() -> all.fencingToken("stock:z"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("name must be one of");
        }
        for (String name : List.of("stock:a", "stock:b", "stock:c")) {
            assertThat(other.tryAcquire(name))
                    .as("%s is free after close", name)
                    .isPresent();
        }
    }

    @Test
    void aBusyMemberLeavesNothingHeld() throws Exception {
        LockHandle busy = other.acquire("stock:b");

        Optional<MultiLockHandle> all = locks.tryAcquireAll(
                List.of("stock:a", "stock:b", "stock:c"), LockOptions.waitAtMost(Duration.ofMillis(50)));

        assertThat(all).isEmpty();
        assertThat(other.tryAcquire("stock:a"))
                .as("the member taken before the busy one is released")
                .isPresent();
        assertThat(other.tryAcquire("stock:c"))
                .as("the member after it was never taken")
                .isPresent();
        assertThatThrownBy(() -> locks.acquireAll(List.of("stock:b", "stock:d"), LockOptions.noWait()))
                .isInstanceOf(LockNotAcquiredException.class)
                .hasMessageContaining("stock:b");
        assertThat(other.tryAcquire("stock:d")).isPresent();
        busy.release();
    }

    @Test
    void theWaitIsOneBudgetForAllMembers() throws Exception {
        LockHandle first = other.acquire("stock:a");
        other.acquire("stock:b");
        CompletableFuture.delayedExecutor(2000, TimeUnit.MILLISECONDS).execute(first::release);
        Duration wait = Duration.ofMillis(2500);

        long start = System.nanoTime();
        Optional<MultiLockHandle> all =
                locks.tryAcquireAll(List.of("stock:a", "stock:b"), LockOptions.waitAtMost(wait));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(all).isEmpty();
        // A budget per member would wait about 2 s for a, then 2.5 s more for b: 4.5 s. One budget
        // ends at 2.5 s; the bound leaves a loaded machine 1.5 s of slack either way.
        assertThat(took).isGreaterThanOrEqualTo(wait).isLessThan(Duration.ofMillis(4000));
        assertThat(other.tryAcquire("stock:a"))
                .as("a, taken after 2 s, was released again")
                .isPresent();
    }

    @Test
    void oppositeOrdersNeverDeadlock() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            List<Thread> threads = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (List<String> order : List.of(List.of("x", "y", "z"), List.of("z", "y", "x"), List.of("y", "x"))) {
                for (DistributedLockFactory client : List.of(locks, other)) {
                    Thread t = new Thread(() -> {
                        try {
                            go.await();
                            for (int i = 0; i < 200; i++) {
                                client.acquireAll(order).release();
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    });
                    t.start();
                    threads.add(t);
                }
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failures).isEmpty();
        });
    }

    @Test
    void theLossOfAnyMemberIsTheHandlesAndReleaseFreesTheOthers() throws Exception {
        MultiLockHandle all = locks.acquireAll(List.of("stock:a", "stock:b"));

        assertThat(locks.operations().forceRelease("stock:b")).isTrue(); // the holder is told at once
        assertThat(other.tryAcquire("stock:a")).as("a is still held").isEmpty();

        LockLostException loss = all.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(loss.lockName()).isEqualTo("stock:b");
        assertThat(all.isValid()).isFalse();
        assertThat(all.remainingLease()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(all::release).isInstanceOf(LockLostException.class);
        assertThat(other.tryAcquire("stock:a"))
                .as("a was released all the same")
                .isPresent();
        assertThatThrownBy(all::release).isInstanceOf(IllegalStateException.class);
        all.close();
    }

    @Test
    void anInterruptedWaitReleasesTheMembersTaken() throws Exception {
        other.acquire("stock:b");
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                locks.acquireAll(List.of("stock:a", "stock:b"));
                ended.complete(null);
            } catch (Throwable e) {
                ended.complete(e);
            }
        });
        waiter.start();
        awaitHeld("stock:a"); // taken by the multi-lock, which waits for b (or is about to)
        waiter.interrupt();

        assertThat(ended.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(other.tryAcquire("stock:a")).as("a was released").isPresent();
    }

    @Test
    void anAsynchronousMultiLockTakesEveryNameWithoutBlocking() throws Exception {
        LockHandle busy = other.acquire("stock:b");
        CompletableFuture<MultiLockHandle> pending = locks.acquireAllAsync(
                        List.of("stock:b", "stock:a"), LockOptions.waitAtMost(Duration.ofSeconds(30)))
                .toCompletableFuture();
        awaitHeld("stock:a"); // taken by the multi-lock, which waits for b (or is about to)
        assertThat(pending).isNotDone();

        busy.release();

        try (MultiLockHandle all = pending.get(10, TimeUnit.SECONDS)) {
            assertThat(all.names()).containsExactly("stock:a", "stock:b");
            assertThat(all.isValid()).isTrue();
        }
        assertThat(other.tryAcquire("stock:a")).isPresent();
    }

    @Test
    void anAsynchronousMultiLockThatRunsOutFailsNamingTheBusyMemberAndHoldsNothing() throws Exception {
        other.acquire("stock:b");
        CompletableFuture<MultiLockHandle> pending = locks.acquireAllAsync(
                        List.of("stock:a", "stock:b", "stock:c"), LockOptions.waitAtMost(Duration.ofMillis(50)))
                .toCompletableFuture();

        assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(LockNotAcquiredException.class)
                .hasMessageContaining("stock:b");
        assertThat(other.tryAcquire("stock:a")).as("a was released").isPresent();
        assertThat(other.tryAcquire("stock:c")).isPresent();
    }

    @Test
    void cancellingAnAsynchronousMultiLockReleasesTheMembersTaken() throws Exception {
        LockHandle busy = other.acquire("stock:b");
        CompletableFuture<MultiLockHandle> pending = locks.acquireAllAsync(
                        List.of("stock:a", "stock:b"), LockOptions.waitAtMost(Duration.ofSeconds(30)))
                .toCompletableFuture();
        awaitHeld("stock:a"); // taken by the multi-lock, which waits for b (or is about to)

        assertThat(pending.cancel(false)).isTrue();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Optional<LockHandle> a = Optional.empty();
        while (a.isEmpty() && System.nanoTime() < deadline) {
            a = other.tryAcquire("stock:a");
            Thread.sleep(5);
        }
        assertThat(a).as("a, taken before the cancel, was released").isPresent();
        busy.release();
        assertThat(other.tryAcquire("stock:b"))
                .as("b was not taken for the cancelled wait")
                .isPresent();
        assertThatThrownBy(() -> locks.acquireAllAsync(List.of(), LockOptions.noWait()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("names must not be empty");
    }

    @Test
    void badNamesAreRefusedNamingTheArgumentAndNothingIsTaken() {
        assertThatThrownBy(() -> locks.acquireAll(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("names must not be null");
        assertThatThrownBy(() -> locks.acquireAll(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("names must not be empty");
        assertThatThrownBy(() -> locks.acquireAll(List.of("a", "b", "a")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a' is there twice");
        assertThatThrownBy(() -> locks.acquireAll(Arrays.asList("a", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("names[1] is not a valid lock name");
        assertThatThrownBy(() -> locks.acquireAll(List.of("a", " ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names[1]");
        assertThatThrownBy(() -> locks.tryAcquireAll(List.of("a"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("options must not be null");
        assertThat(other.tryAcquire("a")).as("nothing was taken").isPresent();
    }

    @Test
    void aClosedFactoryRefuses() {
        locks.close();
        assertThatThrownBy(() -> locks.acquireAll(List.of("a", "b"))).isInstanceOf(LockException.class);
        assertThat(other.tryAcquire("a")).isPresent();
    }

    @Test
    void aMemberLostWhileTheNextIsAwaitedFailsAsNotAcquired() throws Exception {
        // The caller never had the lost member: the acquisition fails as any busy one does, not with
        // the member's LockLostException (which no acquisition's contract allows).
        LockHandle busy = other.acquire("stock:b");
        CompletableFuture<Boolean> forced = CompletableFuture.supplyAsync(() -> {
            try {
                awaitHeld("stock:a");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            return other.operations().forceRelease("stock:a");
        });

        assertThatThrownBy(() -> locks.acquireAll(
                        List.of("stock:a", "stock:b"), LockOptions.waitAtMost(Duration.ofMillis(1500))))
                .isInstanceOf(LockNotAcquiredException.class)
                .hasMessageContaining("stock:b");
        assertThat(forced.get(10, TimeUnit.SECONDS))
                .as("stock:a was force-released under the waiting multi-lock")
                .isTrue();

        CompletableFuture<Boolean> forcedAgain = CompletableFuture.supplyAsync(() -> {
            try {
                awaitHeld("stock:a");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            return other.operations().forceRelease("stock:a");
        });
        assertThat(locks.tryAcquireAll(List.of("stock:a", "stock:b"), LockOptions.waitAtMost(Duration.ofMillis(1500))))
                .isEmpty();
        assertThat(forcedAgain.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(other.tryAcquire("stock:a"))
                .as("nothing of the multi-lock is left held")
                .isPresent();
        busy.release();
    }

    /** Waits (at most 10 s) until {@code name} is held, as the backend says. */
    private void awaitHeld(String name) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (other.operations().inspect(name).isEmpty()) {
            assertThat(System.nanoTime() - deadline)
                    .as("%s held within 10 s", name)
                    .isNegative();
            Thread.sleep(5);
        }
    }
}
