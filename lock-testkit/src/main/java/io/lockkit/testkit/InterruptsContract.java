package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Interrupts, wherever in a wait they arrive" ({@link LockContractTest.Interrupts}): interrupts
 * set on entry to a wait or racing its first moments: interruptible waits throw, lock() keeps
 * waiting and the status.
 */
abstract class InterruptsContract extends ContractGroup {

    InterruptsContract(LockContractTest kit) {
        super(kit);
    }

    /** How many waits each interrupt test starts at once, each on a name of its own that is new to the client. */
    private static final int WAITS = 10;

    private final List<LockHandle> holds = new ArrayList<>();

    /** Names held by a client of their own, so that every wait of the test meets a busy lock. */
    private List<String> busyNames(int n) throws Exception {
        DistributedLockFactory holder = client();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String name = name() + ":" + i;
            holds.add(holder.acquire(name, LockOptions.noWait()));
            names.add(name);
        }
        return names;
    }

    private void releaseBusyNames() {
        holds.forEach(LockHandle::release);
        holds.clear();
    }

    /** Whether a thread of a wait is parked or blocked (or done): a sign that it is waiting, not starting. */
    private boolean settled(Thread t) {
        Thread.State s = t.getState();
        return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.TERMINATED;
    }

    /** Runs {@code call} on a kit thread that first sets its own interrupt status; the outcome or failure. */
    private java.util.concurrent.CompletableFuture<Object> interruptedOnEntry(
            String label, List<Thread> started, java.util.concurrent.Callable<Object> call) {
        java.util.concurrent.CompletableFuture<Object> outcome = new java.util.concurrent.CompletableFuture<>();
        started.add(start(label, () -> {
            Thread.currentThread().interrupt();
            try {
                Object r = call.call();
                outcome.complete(List.of(r, Thread.currentThread().isInterrupted()));
            } catch (Throwable e) {
                outcome.complete(List.of(e, Thread.currentThread().isInterrupted()));
            }
        }));
        return outcome;
    }

    @Test
    @DisplayName(
            "lock() and lock(lease) called with the interrupt status set wait for a busy lock, take it and keep the status")
    void lockWithTheInterruptSetWaitsAndKeepsTheFlag() throws Exception {
        List<String> names = busyNames(WAITS);
        DistributedLockFactory waiting = client();
        boolean leases = has(Capability.EXPLICIT_LEASE);
        List<java.util.concurrent.CompletableFuture<Object>> outcomes = new ArrayList<>();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < WAITS; i++) {
            DistributedLock lock = waiting.getLock(names.get(i));
            boolean withLease = leases && i % 2 == 1;
            outcomes.add(interruptedOnEntry("lock-" + i, waiters, () -> {
                if (withLease) {
                    lock.lock(scaled(Duration.ofSeconds(20)));
                } else {
                    lock.lock();
                }
                boolean held = lock.isHeldByCurrentThread();
                lock.unlock();
                return held;
            }));
        }
        await().atMost(scaled(Duration.ofSeconds(10)))
                .until(() -> waiters.stream().allMatch(this::settled));
        for (int i = 0; i < WAITS; i++) {
            assertThat(outcomes.get(i))
                    .as("lock() %d ended while its lock was held", i)
                    .isNotDone();
        }
        releaseBusyNames();
        for (int i = 0; i < WAITS; i++) {
            Object outcome = outcomes.get(i).get(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(outcome)
                    .as("lock() %d: [result or failure, interrupt status after]", i)
                    .isEqualTo(List.of(true, true));
        }
    }

    @Test
    @DisplayName(
            "lockInterruptibly, tryLock(time) and acquire called with the interrupt status set throw InterruptedException and clear it")
    void interruptibleWaitsWithTheInterruptSetThrow() throws Exception {
        List<String> names = busyNames(WAITS);
        DistributedLockFactory waiting = client();
        List<java.util.concurrent.CompletableFuture<Object>> outcomes = new ArrayList<>();
        for (int i = 0; i < WAITS; i++) {
            String name = names.get(i);
            outcomes.add(
                    interruptedOnEntry("interruptible-" + i, new ArrayList<>(), interruptibleWait(waiting, name, i)));
        }
        for (int i = 0; i < WAITS; i++) {
            List<?> outcome =
                    (List<?>) outcomes.get(i).get(scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(outcome.get(0)).as("wait %d", i).isInstanceOf(InterruptedException.class);
            assertThat(outcome.get(1))
                    .as("interrupt status after wait %d threw", i)
                    .isEqualTo(false);
        }
    }

    /** Waits for the start; an interrupt that comes first stays set for the wait (the case of an interrupt on entry). */
    private void startTogether(CountDownLatch go) {
        try {
            go.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One of the waits that honour interrupts, chosen by {@code i}, on {@code name}. */
    private java.util.concurrent.Callable<Object> interruptibleWait(DistributedLockFactory client, String name, int i) {
        DistributedLock lock = client.getLock(name);
        return switch (i % 4) {
            case 0 ->
                () -> {
                    lock.lockInterruptibly();
                    return "acquired by lockInterruptibly";
                };
            case 1 -> () -> lock.tryLock(60, TimeUnit.SECONDS);
            case 2 -> () -> lock.tryLock(Duration.ofSeconds(60), null);
            default -> () -> client.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(60)));
        };
    }

    @Test
    @DisplayName(
            "an interrupt racing the first moments of a wait ends it with InterruptedException, promptly and with the status cleared")
    void interruptRacingTheStartOfAWaitIsHonoured() throws Exception {
        for (int round = 0; round < 3; round++) {
            List<String> names = busyNames(WAITS);
            DistributedLockFactory waiting = client();
            CountDownLatch go = new CountDownLatch(1);
            List<java.util.concurrent.CompletableFuture<Object>> outcomes = new ArrayList<>();
            List<Thread> waiters = new ArrayList<>();
            for (int i = 0; i < WAITS; i++) {
                java.util.concurrent.Callable<Object> wait = interruptibleWait(waiting, names.get(i), i + round);
                java.util.concurrent.CompletableFuture<Object> outcome = new java.util.concurrent.CompletableFuture<>();
                outcomes.add(outcome);
                waiters.add(start("racing-" + round + "-" + i, () -> {
                    try {
                        startTogether(go);
                        outcome.complete(wait.call());
                    } catch (Throwable e) {
                        outcome.complete(List.of(e, Thread.currentThread().isInterrupted()));
                    }
                }));
            }
            go.countDown();
            for (int i = 0; i < WAITS; i++) {
                // Spread the interrupts over the first moments of the waits: before the first
                // attempt, during it, while subscribing, while parking.
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(
                        ThreadLocalRandom.current().nextInt(300)));
                waiters.get(i).interrupt();
            }
            for (int i = 0; i < WAITS; i++) {
                Object outcome =
                        outcomes.get(i).get(scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
                assertThat(outcome).as("round %d, wait %d", round, i).isInstanceOf(List.class);
                assertThat(((List<?>) outcome).get(0))
                        .as("round %d, wait %d", round, i)
                        .isInstanceOf(InterruptedException.class);
                assertThat(((List<?>) outcome).get(1))
                        .as("interrupt status after round %d, wait %d threw", round, i)
                        .isEqualTo(false);
            }
        }
    }

    @Test
    @DisplayName(
            "lock() survives an interrupt racing the first moments of its wait: it takes the lock once free, and the status stays set")
    void lockSurvivesAnInterruptRacingTheStartOfItsWait() throws Exception {
        List<String> names = busyNames(WAITS);
        DistributedLockFactory waiting = client();
        CountDownLatch go = new CountDownLatch(1);
        List<java.util.concurrent.CompletableFuture<Object>> outcomes = new ArrayList<>();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < WAITS; i++) {
            DistributedLock lock = waiting.getLock(names.get(i));
            java.util.concurrent.CompletableFuture<Object> outcome = new java.util.concurrent.CompletableFuture<>();
            outcomes.add(outcome);
            waiters.add(start("racing-lock-" + i, () -> {
                try {
                    startTogether(go);
                    lock.lock();
                    boolean interrupted = Thread.currentThread().isInterrupted();
                    lock.unlock();
                    outcome.complete(List.of("acquired", interrupted));
                } catch (Throwable e) {
                    outcome.complete(List.of(e, Thread.currentThread().isInterrupted()));
                }
            }));
        }
        go.countDown();
        for (Thread t : waiters) {
            LockSupport.parkNanos(
                    TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(300)));
            t.interrupt();
        }
        await().atMost(scaled(Duration.ofSeconds(10)))
                .until(() -> waiters.stream().allMatch(this::settled));
        for (int i = 0; i < WAITS; i++) {
            assertThat(outcomes.get(i))
                    .as("lock() %d ended while its lock was held", i)
                    .isNotDone();
        }
        releaseBusyNames();
        for (int i = 0; i < WAITS; i++) {
            Object outcome = outcomes.get(i).get(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(outcome)
                    .as("lock() %d: [outcome, interrupt status after]", i)
                    .isEqualTo(List.of("acquired", true));
        }
    }

    @Test
    @DisplayName(
            "calls that do not wait, made with the interrupt status set, succeed and keep it: tryAcquire, acquireAgain, extend, inspect, isLocked, locks, release, forceRelease")
    void callsThatDoNotWaitKeepTheInterruptStatus() throws Exception {
        String name = name();
        DistributedLockFactory c = client();
        DistributedLock lock = c.getLock(name);
        CompletableFuture<Map<String, Object>> outcome = new CompletableFuture<>();
        start("interrupted-caller", () -> outcome.complete(callWithTheInterruptSet(c, lock, name)));
        Map<String, Object> kept = outcome.get(scaled(Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(kept).as("the interrupt status after each call (true: kept)").doesNotContainKey("failed");
        assertThat(kept.values())
                .as("the interrupt status after each call: %s", kept)
                .containsOnly(true);
    }

    /**
     * Makes each call that does not wait with the interrupt status set, and notes whether the status
     * was still set after it (or, under "failed", what a call threw).
     */
    private Map<String, Object> callWithTheInterruptSet(DistributedLockFactory c, DistributedLock lock, String name) {
        Map<String, Object> kept = new LinkedHashMap<>();
        Thread.currentThread().interrupt();
        try {
            LockHandle h = c.tryAcquire(name).orElseThrow(() -> new AssertionError("a free lock was busy"));
            noteStatus(kept, "tryAcquire");
            h.acquireAgain();
            noteStatus(kept, "acquireAgain");
            if (has(Capability.EXPLICIT_LEASE)) {
                h.extend(scaled(Duration.ofSeconds(20)));
                noteStatus(kept, "extend");
            }
            if (has(Capability.INSPECTION)) {
                assertThat(c.operations().inspect(name)).isPresent();
                noteStatus(kept, "inspect");
                assertThat(lock.isLocked()).isTrue();
                noteStatus(kept, "isLocked");
            }
            if (has(Capability.LISTING)) {
                try (Stream<LockInfo> locks = c.operations().locks(name)) {
                    assertThat(locks.count()).isEqualTo(1);
                }
                noteStatus(kept, "locks");
            }
            h.release();
            noteStatus(kept, "release (of one of two holds)");
            h.release();
            noteStatus(kept, "release");
            if (has(Capability.FORCE_RELEASE)) {
                assertThat(c.tryAcquire(name)).as("the released lock").isPresent();
                Thread.interrupted(); // this call only takes the lock to be force-released: not noted
                Thread.currentThread().interrupt();
                assertThat(c.operations().forceRelease(name)).isTrue();
                noteStatus(kept, "forceRelease");
            }
        } catch (Throwable e) {
            kept.put("failed", e);
        }
        return kept;
    }

    /** Notes whether the call just made left the interrupt status set, and sets it again for the next one. */
    private static void noteStatus(Map<String, Object> kept, String call) {
        kept.put(call, Thread.interrupted());
        Thread.currentThread().interrupt();
    }
}
