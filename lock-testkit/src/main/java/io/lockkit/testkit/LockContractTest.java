package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import io.lockkit.LockLostException;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.ForwardingLockProvider;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every lock backend keeps, as JUnit 5 tests. A backend's test class extends this
 * and implements {@link #newProvider()}, which must return a new, independent client of one
 * shared backend on each call: the kit uses several of them to play separate processes.
 *
 * <pre>{@code
 * class MyProviderContractTest extends LockContractTest {
 *     @Override
 *     protected LockProvider newProvider() {
 *         return new MyLockProvider(sharedBackendAddress);
 *     }
 * }
 * }</pre>
 *
 * <p>Optional hooks: {@link #capabilities()} (by default what the providers declare; tests of an
 * absent capability are skipped, and the API is checked to refuse it loudly), {@link #timeScale()}
 * for slow backends, and {@link #stopBackend()}/{@link #startBackend()} for the outage tests.
 * Every provider the kit makes is closed after the test, never during it (a test that closes one
 * says so).
 */
// A separate thread, so a test stuck in an uninterruptible lock() still ends.
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class LockContractTest {

    private final List<DistributedLockFactory> clients = new CopyOnWriteArrayList<>();
    /** Providers the kit made outside a client, closed after the clients. */
    private final List<LockProvider> providers = new CopyOnWriteArrayList<>();
    /** What the first provider made in this test declared. */
    private volatile @Nullable Set<Capability> declared;

    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private @Nullable Set<Capability> capabilities;
    private String testName = "test";

    // ---- hooks ----

    /** A new, independent client of the backend under test (a new connection, as another process would have). */
    protected abstract LockProvider newProvider();

    /**
     * What the backend can do; by default what its providers declare, read from the first
     * provider the test made (or, before any, from one made for it and closed after the test).
     */
    protected Set<Capability> capabilities() {
        if (declared == null) {
            providers.add(provider());
        }
        return java.util.Objects.requireNonNull(declared, "declared"); // provider() records what it declares
    }

    /** Multiplies every time bound of the kit, for backends slower than a local Redis. */
    protected double timeScale() {
        return 1.0;
    }

    /** Whether {@link #stopBackend()} and {@link #startBackend()} are implemented. */
    protected boolean canStopBackend() {
        return false;
    }

    /** Makes the backend unreachable for every client. */
    protected void stopBackend() {
        throw new UnsupportedOperationException("stopBackend");
    }

    /** Brings the backend back; it may have forgotten every hold, as a restart would. */
    protected void startBackend() {
        throw new UnsupportedOperationException("startBackend");
    }

    // ---- helpers for the tests ----

    @BeforeEach
    void rememberTestName(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
    }

    @AfterEach
    void closeClients() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
        }
        for (DistributedLockFactory c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // a client closed by the test itself, or a backend stopped by it
            }
        }
        for (LockProvider p : providers) {
            try {
                p.close();
            } catch (RuntimeException e) {
                // a backend stopped by the test
            }
        }
        for (Thread t : threads) {
            t.join(scaled(Duration.ofSeconds(10)).toMillis());
        }
        clients.clear();
        providers.clear();
        threads.clear();
    }

    /** A duration multiplied by {@link #timeScale()}. */
    protected final Duration scaled(Duration d) {
        return Duration.ofNanos((long) (d.toNanos() * timeScale()));
    }

    /** The default watchdog lease of the kit's clients: short, so renewal is seen quickly. */
    protected final Duration watchdogLease() {
        return scaled(Duration.ofMillis(1500));
    }

    /** A client over a new provider, with the kit's short watchdog lease; closed after the test. */
    protected final DistributedLockFactory client() {
        return client(watchdogLease(), e -> {});
    }

    /** A client with the kit's watchdog lease over {@code provider} (a decorator of a new provider); closed after the test. */
    protected final DistributedLockFactory clientOver(LockProvider provider) {
        DistributedLockFactory f = DistributedLockFactory.builder(provider)
                .defaultOptions(
                        LockOptions.builder().watchdogLease(watchdogLease()).build())
                .subscriptionLinger(Duration.ZERO)
                .build();
        clients.add(f);
        return f;
    }

    /** A client with its own watchdog lease and loss listener. */
    protected final DistributedLockFactory client(
            Duration watchdogLease, java.util.function.Consumer<LockLostException> onLost) {
        DistributedLockFactory f = DistributedLockFactory.builder(provider())
                .defaultOptions(
                        LockOptions.builder().watchdogLease(watchdogLease).build())
                .onLockLost(onLost)
                .subscriptionLinger(Duration.ZERO)
                .build();
        clients.add(f);
        return f;
    }

    /**
     * A new provider from {@link #newProvider()}, noting what the first one declares; the caller
     * closes it (or hands it to a client that does).
     */
    private LockProvider provider() {
        LockProvider p = newProvider();
        if (declared == null) {
            declared = Set.copyOf(p.capabilities());
        }
        return p;
    }

    /** A lock name unique to this test run. */
    protected final String name() {
        return "kit:" + testName + ":"
                + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    protected final boolean has(Capability capability) {
        if (capabilities == null) {
            capabilities = capabilities();
        }
        return capabilities.contains(capability);
    }

    private void assume(Capability capability) {
        assumeTrue(has(capability), () -> "the provider declares no " + capability);
    }

    /** Starts a thread that the kit interrupts and joins after the test. */
    protected final Thread start(String label, Runnable body) {
        Thread t = new Thread(body, "kit-" + label);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    /**
     * Runs a call that may wait on a kit thread and returns its result, failing fast when it does
     * not return within {@code bound} (a provider that ignores wait limits must not stall the kit).
     */
    protected final <T> T returnsWithin(Duration bound, java.util.concurrent.Callable<T> call) throws Exception {
        java.util.concurrent.CompletableFuture<T> result = new java.util.concurrent.CompletableFuture<>();
        start("bounded-call", () -> {
            try {
                result.complete(call.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get(scaled(bound).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the call had not returned after " + scaled(bound), e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        }
    }

    private static LockOptions leaseOf(Duration lease) {
        return LockOptions.builder().noWait().lease(lease).build();
    }

    private LockOptions waitFor(Duration wait) {
        return LockOptions.builder().waitAtMost(scaled(wait)).build();
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /**
     * Waits until {@code other} can take {@code name} (polling without waiting, so that no retry
     * hint is involved), failing after {@code bound}; releases what it took. Returns the millis
     * it took from {@code sinceNanos}.
     */
    private long freeForOtherWithin(
            DistributedLockFactory other, String name, Duration bound, long sinceNanos, String what) {
        await(what).atMost(scaled(bound)).pollInterval(Duration.ofMillis(20)).until(() -> {
            Optional<LockHandle> h = other.tryAcquire(name);
            h.ifPresent(LockHandle::release);
            return h.isPresent();
        });
        return millisSince(sinceNanos);
    }

    /** Read, pause, write: loses updates unless the callers exclude each other. */
    private static final class Counter {
        private long value;

        void increment() {
            long v = value;
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(300));
            value = v + 1;
        }

        synchronized long get() {
            return value;
        }
    }

    /** A hold as one contender saw it: the time from acquisition to release, and its token. */
    private record Interval(long start, long end, long token) {}

    private static void assertNoOverlap(List<Interval> intervals) {
        List<Interval> sorted = new ArrayList<>(intervals);
        sorted.sort((a, b) -> Long.compare(a.start, b.start));
        for (int i = 1; i < sorted.size(); i++) {
            Interval prev = sorted.get(i - 1);
            Interval cur = sorted.get(i);
            assertThat(cur.start)
                    .as("hold %d began before hold %d ended", i, i - 1)
                    .isGreaterThanOrEqualTo(prev.end);
        }
    }

    private void assertTokensFollowTime(List<Interval> intervals) {
        if (!has(Capability.FENCING_TOKENS)) {
            return;
        }
        List<Interval> sorted = new ArrayList<>(intervals);
        sorted.sort((a, b) -> Long.compare(a.start, b.start));
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(sorted.get(i).token).as("token of hold %d", i).isGreaterThan(sorted.get(i - 1).token);
        }
    }

    private void runAll(List<Runnable> tasks, Duration bound) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (Runnable task : tasks) {
                futures.add(pool.submit(() -> {
                    go.await();
                    task.run();
                    return null;
                }));
            }
            go.countDown();
            long end = System.nanoTime() + scaled(bound).toNanos();
            for (Future<?> f : futures) {
                try {
                    f.get(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception ex ? ex : e;
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- the contract ----

    @Nested
    @DisplayName("Mutual exclusion under contention")
    class MutualExclusion {

        @Test
        @DisplayName("the shared counter loses updates when nobody locks, so the next tests can fail")
        void counterLosesUpdatesWithoutALock() throws Exception {
            Counter counter = new Counter();
            List<Runnable> tasks = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                tasks.add(() -> {
                    for (int i = 0; i < 20; i++) {
                        counter.increment();
                    }
                });
            }
            runAll(tasks, Duration.ofSeconds(30));
            assertThat(counter.get()).isLessThan(160);
        }

        @Test
        @DisplayName("9 threads on 3 clients lose no update, and no two holds overlap")
        void threadsOnSeveralClientsLoseNoUpdate() throws Exception {
            String name = name();
            Counter counter = new Counter();
            List<Interval> intervals = Collections.synchronizedList(new ArrayList<>());
            List<Runnable> tasks = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                DistributedLock lock = client().getLock(name);
                for (int t = 0; t < 3; t++) {
                    tasks.add(() -> {
                        for (int i = 0; i < 15; i++) {
                            lock.lock();
                            try {
                                long start = System.nanoTime();
                                long token = has(Capability.FENCING_TOKENS) ? lock.fencingToken() : 0;
                                counter.increment();
                                intervals.add(new Interval(start, System.nanoTime(), token));
                            } finally {
                                lock.unlock();
                            }
                        }
                    });
                }
            }
            runAll(tasks, Duration.ofSeconds(60));
            assertThat(counter.get()).isEqualTo(9 * 15);
            assertNoOverlap(intervals);
            assertTokensFollowTime(intervals);
        }

        @Test
        @DisplayName("8 handle owners on 4 clients lose no update, and no two holds overlap")
        void handlesOnSeveralClientsLoseNoUpdate() throws Exception {
            String name = name();
            Counter counter = new Counter();
            List<Interval> intervals = Collections.synchronizedList(new ArrayList<>());
            List<Runnable> tasks = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                DistributedLockFactory client = client();
                for (int t = 0; t < 2; t++) {
                    tasks.add(() -> {
                        for (int i = 0; i < 15; i++) {
                            try (LockHandle h = client.acquire(name, waitFor(Duration.ofSeconds(30)))) {
                                long start = System.nanoTime();
                                counter.increment();
                                intervals.add(new Interval(
                                        start,
                                        System.nanoTime(),
                                        has(Capability.FENCING_TOKENS) ? h.fencingToken() : 0));
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    });
                }
            }
            runAll(tasks, Duration.ofSeconds(60));
            assertThat(counter.get()).isEqualTo(8 * 15);
            assertNoOverlap(intervals);
            assertTokensFollowTime(intervals);
        }

        @Test
        @DisplayName("of 8 simultaneous tryLock calls on 4 clients exactly one wins")
        void exactlyOneSimultaneousTryLockWins() throws Exception {
            String name = name();
            AtomicInteger winners = new AtomicInteger();
            CountDownLatch tried = new CountDownLatch(8);
            List<Runnable> tasks = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                DistributedLock lock = client().getLock(name);
                for (int t = 0; t < 2; t++) {
                    tasks.add(() -> {
                        boolean won = lock.tryLock();
                        tried.countDown();
                        if (won) {
                            winners.incrementAndGet();
                            try {
                                tried.await(); // hold until every contender has tried
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } finally {
                                lock.unlock();
                            }
                        }
                    });
                }
            }
            runAll(tasks, Duration.ofSeconds(30));
            assertThat(winners).hasValue(1);
        }

        @Test
        @DisplayName("a lock held by one client is busy for every other client")
        void aHeldLockIsBusyForOtherClients() throws Exception {
            String name = name();
            DistributedLock a = client().getLock(name);
            a.lock();
            for (int c = 0; c < 3; c++) {
                DistributedLock other = client().getLock(name);
                assertThat(returnsWithin(
                                Duration.ofSeconds(3), () -> other.tryLock(scaled(Duration.ofMillis(100)), null)))
                        .isFalse();
            }
            a.unlock();
            assertThat(client().getLock(name).tryLock()).isTrue();
        }
    }

    @Nested
    @DisplayName("Reentrancy and hold counts")
    class Reentrancy {

        @Test
        @DisplayName("a thread can lock 10 deep and holds until the tenth unlock")
        void threadLocksTenDeep() throws Exception {
            String name = name();
            DistributedLock lock = client().getLock(name);
            DistributedLock other = client().getLock(name);
            for (int i = 1; i <= 10; i++) {
                assertThat(lock.tryLock(scaled(Duration.ofSeconds(2)), null))
                        .as("nested lock %d", i)
                        .isTrue();
                assertThat(lock.getHoldCount()).isEqualTo(i);
            }
            for (int i = 9; i >= 1; i--) {
                lock.unlock();
                assertThat(lock.getHoldCount()).isEqualTo(i);
                assertThat(lock.isHeldByCurrentThread()).isTrue();
            }
            assertThat(other.tryLock())
                    .as("another client while one hold remains")
                    .isFalse();
            lock.unlock();
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThat(other.tryLock())
                    .as("another client after the last unlock")
                    .isTrue();
            other.unlock();
        }

        @Test
        @DisplayName("hold counts belong to threads: another thread of the same client is kept out")
        void holdCountsArePerThread() throws Exception {
            String name = name();
            DistributedLock lock = client().getLock(name);
            lock.lock();
            assertThat(lock.tryLock(scaled(Duration.ofSeconds(2)), null))
                    .as("nested lock")
                    .isTrue();
            AtomicReference<Object[]> seen = new AtomicReference<>();
            Thread t = start(
                    "other-thread",
                    () -> seen.set(new Object[] {lock.tryLock(), lock.getHoldCount(), lock.isHeldByCurrentThread()}));
            t.join(scaled(Duration.ofSeconds(10)).toMillis());
            assertThat(seen.get()).containsExactly(false, 0, false);
            assertThat(lock.getHoldCount()).isEqualTo(2);
            lock.unlock();
            lock.unlock();
        }

        @Test
        @DisplayName("two lock objects of one name on one thread share the hold count")
        void lockObjectsOfOneNameShareTheThreadsHold() throws Exception {
            String name = name();
            DistributedLockFactory client = client();
            DistributedLock first = client.getLock(name);
            DistributedLock second = client.getLock(name);
            first.lock();
            assertThat(second.tryLock(scaled(Duration.ofSeconds(2)), null)).isTrue();
            assertThat(first.getHoldCount()).isEqualTo(2);
            second.unlock();
            first.unlock();
            assertThat(second.isHeldByCurrentThread()).isFalse();
        }

        @Test
        @DisplayName("a handle can be acquired again 10 deep and holds until the tenth release")
        void handleAcquiresTenDeep() throws Exception {
            String name = name();
            DistributedLockFactory other = client();
            LockHandle h = client().acquire(name, waitFor(Duration.ofSeconds(2)));
            for (int i = 2; i <= 10; i++) {
                h.acquireAgain();
                assertThat(h.holdCount()).isEqualTo(i);
            }
            for (int i = 9; i >= 1; i--) {
                h.release();
                assertThat(h.holdCount()).isEqualTo(i);
                assertThat(h.isValid()).isTrue();
            }
            assertThat(other.tryAcquire(name))
                    .as("another client while one hold remains")
                    .isEmpty();
            h.release();
            assertThat(h.isValid()).isFalse();
            assertThat(other.tryAcquire(name))
                    .as("another client after the last release")
                    .isPresent();
        }

        @Test
        @DisplayName("two handles of one client are two owners")
        void handlesAreSeparateOwners() throws Exception {
            String name = name();
            DistributedLockFactory client = client();
            try (LockHandle first = client.acquire(name, waitFor(Duration.ofSeconds(2)))) {
                assertThat(first.isValid()).isTrue();
                assertThat(client.tryAcquire(name)).isEmpty();
            }
            assertThat(client.tryAcquire(name)).isPresent();
        }

        @Test
        @DisplayName("a handle may be released from another thread than the one that took it")
        void handleIsReleasedFromAnotherThread() throws Exception {
            String name = name();
            LockHandle h = client().acquire(name, waitFor(Duration.ofSeconds(2)));
            Thread t = start("releaser", h::release);
            t.join(scaled(Duration.ofSeconds(10)).toMillis());
            assertThat(h.isValid()).isFalse();
            assertThat(client().tryAcquire(name)).isPresent();
        }

        @Test
        @DisplayName("unlocking more often than locking throws IllegalMonitorStateException")
        void unlockingTooOftenThrows() {
            DistributedLock lock = client().getLock(name());
            lock.lock();
            lock.unlock();
            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .isNotInstanceOf(LockLostException.class);
        }
    }

    @Nested
    @DisplayName("Independent names")
    class Independence {

        @Test
        @DisplayName("300 names are held at once by one client and each is busy for another")
        void hundredsOfNamesAreHeldAtOnce() throws Exception {
            DistributedLockFactory a = client();
            DistributedLockFactory b = client();
            List<String> names = new ArrayList<>();
            List<LockHandle> handles = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                String n = name() + ":" + i;
                names.add(n);
                handles.add(a.tryAcquire(n).orElseThrow(() -> new AssertionError("free name " + n + " was busy")));
            }
            for (String n : names) {
                assertThat(b.tryAcquire(n)).as(n).isEmpty();
            }
            assertThat(b.tryAcquire(name() + ":other")).isPresent();
            handles.forEach(LockHandle::release);
            for (String n : names) {
                assertThat(b.tryAcquire(n)).as(n).isPresent();
            }
        }

        @Test
        @DisplayName("names that differ in case, spacing or suffix are different locks")
        void similarNamesAreDifferentLocks() {
            String base = name();
            DistributedLockFactory a = client();
            DistributedLockFactory b = client();
            List<String> names = List.of(base + "x", base + "X", base + "x ", base + "x:1", base + "x:10");
            for (String n : names) {
                assertThat(a.tryAcquire(n)).as("first holder of %s", n).isPresent();
            }
            for (String n : names) {
                assertThat(b.tryAcquire(n)).as("second holder of %s", n).isEmpty();
            }
        }

        @Test
        @DisplayName("two 1 KB names that differ only in the last character are different locks")
        void longNamesDifferingInTheLastCharacterAreDifferentLocks() {
            String base = name() + ":";
            String prefix = base + "n".repeat(1023 - base.length());
            String a = prefix + "a";
            String b = prefix + "b";
            assertThat(a).hasSize(1024);
            DistributedLockFactory first = client();
            DistributedLockFactory second = client();
            assertThat(first.tryAcquire(a)).as("the first name").isPresent();
            assertThat(second.tryAcquire(b))
                    .as("the second name, while the first is held")
                    .isPresent();
            assertThat(second.tryAcquire(a))
                    .as("the first name, held by another client")
                    .isEmpty();
        }

        @Test
        @DisplayName("names with braces, spaces, unicode and 1 KB length lock like any other")
        void unusualNamesLock() {
            String base = name();
            List<String> names = List.of(
                    base + "{braces}",
                    base + "}{",
                    base + "{",
                    base + " with spaces ",
                    base + "锁🔒ünïcödé",
                    base + "x".repeat(1024));
            DistributedLockFactory a = client();
            DistributedLockFactory b = client();
            for (String n : names) {
                Optional<LockHandle> h = a.tryAcquire(n);
                assertThat(h).as("first holder").isPresent();
                assertThat(b.tryAcquire(n)).as("second holder").isEmpty();
                h.get().release();
                assertThat(b.tryAcquire(n)).as("after release").isPresent();
            }
        }
    }

    @Nested
    @DisplayName("Lease expiry")
    class Expiry {

        @Test
        @DisplayName("a lapsed lease lets another client in")
        void lapsedLeaseLetsAnotherClientIn() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            DistributedLock a = client().getLock(name);
            a.lock(scaled(Duration.ofMillis(500)));
            long start = System.nanoTime();
            assertThat(client().getLock(name).tryLock(scaled(Duration.ofSeconds(5)), null))
                    .isTrue();
            assertThat(millisSince(start))
                    .as("waited for the lease")
                    .isGreaterThanOrEqualTo(scaled(Duration.ofMillis(300)).toMillis());
        }

        @Test
        @DisplayName("the old holder's unlock throws LockLostException and leaves the new holder's lock alone")
        void oldHoldersUnlockIsReportedAndHarmless() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            DistributedLock a = client().getLock(name);
            a.lock(scaled(Duration.ofMillis(400)));
            DistributedLock b = client().getLock(name);
            assertThat(b.tryLock(scaled(Duration.ofSeconds(5)), null)).isTrue();
            assertThatThrownBy(a::unlock)
                    .isInstanceOf(LockLostException.class)
                    .satisfies(
                            e -> assertThat(((LockLostException) e).lockName()).isEqualTo(name));
            assertThat(b.isHeldByCurrentThread()).isTrue();
            assertThat(client().getLock(name).tryLock())
                    .as("a third client after the old holder's unlock")
                    .isFalse();
            b.unlock();
        }

        @Test
        @DisplayName("a handle whose lease ran out is invalid and its release throws LockLostException")
        void expiredHandleIsInvalid() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            LockHandle h = client().acquire(name, leaseOf(scaled(Duration.ofMillis(300))));
            assertThat(h.isValid()).isTrue();
            assertThat(h.remainingLease()).isPositive().isLessThanOrEqualTo(scaled(Duration.ofMillis(300)));
            await().atMost(scaled(Duration.ofSeconds(3))).until(() -> !h.isValid());
            assertThat(h.remainingLease()).isZero();
            assertThatThrownBy(h::release).isInstanceOf(LockLostException.class);
        }

        @Test
        @DisplayName("an extended lease outlives its first length")
        void extendedLeaseOutlivesItsFirstLength() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            LockHandle h = client().acquire(name, leaseOf(scaled(Duration.ofMillis(600))));
            h.extend(scaled(Duration.ofSeconds(5)));
            Thread.sleep(scaled(Duration.ofMillis(1200)).toMillis()); // past the first lease, on the backend's clock
            assertThat(h.isValid()).isTrue();
            assertThat(client().tryAcquire(name)).isEmpty();
            h.release();
        }

        @Test
        @DisplayName("a lapsed lease frees the lock on time: a 500 ms lease is free for others well within 2.5 s")
        void lapsedLeaseEndsOnTime() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            long start = System.nanoTime();
            client().getLock(name).lock(scaled(Duration.ofMillis(500)));
            freeForOtherWithin(client(), name, Duration.ofMillis(2500), start, "the lock free after its 500 ms lease");
        }

        @Test
        @DisplayName("a renewal sets the length asked for: a lease cut to 500 ms is free for others well within 2.5 s")
        void renewalSetsTheLengthAskedFor() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            LockHandle h = client().acquire(name, leaseOf(scaled(Duration.ofSeconds(20))));
            long start = System.nanoTime();
            h.extend(scaled(Duration.ofMillis(500)));
            freeForOtherWithin(
                    client(),
                    name,
                    Duration.ofMillis(2500),
                    start,
                    "the lock free after its lease was renewed to 500 ms");
        }

        @Test
        @DisplayName("a reentrant acquisition with a shorter lease never shortens the current one")
        void reentrantAcquisitionNeverShortensTheLease() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            DistributedLock lock = client().getLock(name);
            lock.lock(scaled(Duration.ofSeconds(20)));
            lock.lock(scaled(Duration.ofMillis(300)));
            Thread.sleep(scaled(Duration.ofSeconds(1)).toMillis()); // past the shorter lease, on the backend's clock
            assertThat(client().getLock(name).tryLock())
                    .as("another client, past the shorter lease")
                    .isFalse();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThatCode(() -> {
                        lock.unlock();
                        lock.unlock();
                    })
                    .doesNotThrowAnyException();
        }

        @Test
        @DisplayName("a reentrant acquisition with a longer lease lengthens the current one")
        void reentrantAcquisitionWithALongerLeaseLengthensIt() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            DistributedLock lock = client().getLock(name);
            lock.lock(scaled(Duration.ofMillis(400)));
            lock.lock(scaled(Duration.ofSeconds(20)));
            Thread.sleep(scaled(Duration.ofMillis(1200)).toMillis()); // past the first lease, on the backend's clock
            assertThat(client().getLock(name).tryLock())
                    .as("another client, past the first lease")
                    .isFalse();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThatCode(() -> {
                        lock.unlock();
                        lock.unlock();
                    })
                    .doesNotThrowAnyException();
        }

        @Test
        @DisplayName("extending a lapsed lease throws LockLostException")
        void extendingALapsedLeaseThrows() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            LockHandle h = client().acquire(name(), leaseOf(scaled(Duration.ofMillis(200))));
            await().atMost(scaled(Duration.ofSeconds(3))).until(() -> !h.isValid());
            assertThatThrownBy(() -> h.extend(Duration.ofSeconds(5))).isInstanceOf(LockLostException.class);
        }
    }

    @Nested
    @DisplayName("Watchdog renewal")
    class Watchdog {

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
            clients.add(client);
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

    @Nested
    @DisplayName("Waiting")
    class Waiting {

        @Test
        @DisplayName("tryLock with a timeout returns false within its bounds")
        void timedTryLockReturnsWithinBounds() throws Exception {
            String name = name();
            client().getLock(name).lock();
            DistributedLock b = client().getLock(name);
            long start = System.nanoTime();
            boolean acquired = returnsWithin(
                    Duration.ofSeconds(3),
                    () -> b.tryLock(scaled(Duration.ofMillis(400)).toMillis(), TimeUnit.MILLISECONDS));
            assertThat(acquired).isFalse();
            assertThat(millisSince(start))
                    .isGreaterThanOrEqualTo(scaled(Duration.ofMillis(380)).toMillis());
        }

        @Test
        @DisplayName("acquire throws LockNotAcquiredException naming the lock when the wait runs out")
        void acquireThrowsWhenTheWaitRunsOut() throws Exception {
            String name = name();
            client().getLock(name).lock();
            DistributedLockFactory other = client();
            assertThatThrownBy(() -> returnsWithin(
                            Duration.ofSeconds(3),
                            () -> other.acquire(name, LockOptions.waitAtMost(scaled(Duration.ofMillis(200))))))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .satisfies(e -> assertThat(((LockException) e).lockName()).isEqualTo(name));
        }

        @Test
        @DisplayName("a waiter acquires soon after release, far sooner than the remaining lease")
        void waiterAcquiresSoonAfterRelease() throws Exception {
            String name = name();
            Duration longLease = scaled(Duration.ofSeconds(30));
            DistributedLock holder = client(longLease, e -> {}).getLock(name);
            holder.lock();
            DistributedLock waiter = client(longLease, e -> {}).getLock(name);
            AtomicLong acquiredAt = new AtomicLong();
            CountDownLatch waiting = new CountDownLatch(1);
            Thread t = start("waiter", () -> {
                waiting.countDown();
                waiter.lock();
                acquiredAt.set(System.nanoTime());
                waiter.unlock();
            });
            waiting.await();
            Thread.sleep(scaled(Duration.ofMillis(300)).toMillis()); // let the waiter park
            long released = System.nanoTime();
            holder.unlock();
            t.join(scaled(Duration.ofSeconds(10)).toMillis());
            assertThat(acquiredAt.get()).as("the waiter acquired").isNotZero();
            assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - released))
                    .isLessThan(scaled(Duration.ofSeconds(2)).toMillis());
        }

        @Test
        @DisplayName("20 waiters on 2 clients all acquire in turn")
        void manyWaitersAcquireInTurn() throws Exception {
            String name = name();
            LockHandle holder = client().acquire(name, LockOptions.noWait());
            AtomicInteger done = new AtomicInteger();
            List<Runnable> tasks = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                DistributedLock lock = client().getLock(name);
                for (int i = 0; i < 10; i++) {
                    tasks.add(() -> {
                        lock.lock();
                        done.incrementAndGet();
                        lock.unlock();
                    });
                }
            }
            start("releaser", () -> {
                LockSupport.parkNanos(scaled(Duration.ofMillis(200)).toNanos());
                holder.release();
            });
            runAll(tasks, Duration.ofSeconds(30));
            assertThat(done).hasValue(20);
        }

        @Test
        @DisplayName("lockInterruptibly stops waiting when interrupted")
        void lockInterruptiblyHonoursInterruption() throws Exception {
            String name = name();
            client().getLock(name).lock();
            DistributedLock b = client().getLock(name);
            AtomicReference<Throwable> outcome = new AtomicReference<>();
            Thread t = start("interruptible", () -> {
                try {
                    b.lockInterruptibly();
                    outcome.set(new AssertionError("acquired a held lock"));
                } catch (InterruptedException e) {
                    outcome.set(e);
                }
            });
            Thread.sleep(scaled(Duration.ofMillis(200)).toMillis());
            t.interrupt();
            t.join(scaled(Duration.ofSeconds(3)).toMillis());
            assertThat(t.isAlive()).as("still waiting after the interrupt").isFalse();
            assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        }

        @Test
        @DisplayName("a timed tryLock stops waiting when interrupted")
        void timedTryLockHonoursInterruption() throws Exception {
            String name = name();
            client().getLock(name).lock();
            DistributedLock b = client().getLock(name);
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread t = start("timed", () -> {
                try {
                    outcome.set(b.tryLock(60, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    outcome.set(e);
                }
            });
            Thread.sleep(scaled(Duration.ofMillis(200)).toMillis());
            t.interrupt();
            t.join(scaled(Duration.ofSeconds(3)).toMillis());
            assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        }

        @Test
        @DisplayName("lock() keeps waiting through an interrupt and keeps the interrupt flag")
        void lockKeepsWaitingAndTheInterruptFlag() throws Exception {
            String name = name();
            DistributedLock holder = client().getLock(name);
            holder.lock();
            DistributedLock b = client().getLock(name);
            AtomicBoolean acquired = new AtomicBoolean();
            AtomicBoolean flag = new AtomicBoolean();
            Thread t = start("uninterruptible", () -> {
                b.lock();
                acquired.set(true);
                flag.set(Thread.currentThread().isInterrupted());
                b.unlock();
            });
            Thread.sleep(scaled(Duration.ofMillis(200)).toMillis());
            t.interrupt();
            Thread.sleep(scaled(Duration.ofMillis(300)).toMillis());
            assertThat(acquired).as("acquired while the lock was held").isFalse();
            holder.unlock();
            t.join(scaled(Duration.ofSeconds(5)).toMillis());
            assertThat(acquired).isTrue();
            assertThat(flag).as("interrupt flag kept").isTrue();
        }

        @Test
        @DisplayName(
                "a waiter that no release wakes takes a lapsed lock soon after the lease: retry hints are not too long")
        void waiterTakesALapsedLockSoonAfterTheLease() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            long start = System.nanoTime();
            client().getLock(name).lock(scaled(Duration.ofMillis(500)));
            DistributedLock b = client().getLock(name);
            // No release: nothing wakes the waiter, which has only the backend's retry hint to go by.
            long tookMillis = returnsWithin(Duration.ofSeconds(15), () -> {
                assertThat(b.tryLock(scaled(Duration.ofSeconds(10)), null))
                        .as("the waiter took the lapsed lock")
                        .isTrue();
                long took = millisSince(start);
                b.unlock();
                return took;
            });
            assertThat(tookMillis)
                    .as("millis until the waiter had the lock of a 500 ms lease")
                    .isLessThan(scaled(Duration.ofMillis(2500)).toMillis());
        }

        @Test
        @DisplayName("tryLock with a negative time does not wait, as Lock's contract says")
        void negativeTimeDoesNotWait() throws Exception {
            String name = name();
            client().getLock(name).lock();
            long start = System.nanoTime();
            assertThat(client().getLock(name).tryLock(-5, TimeUnit.SECONDS)).isFalse();
            assertThat(millisSince(start))
                    .isLessThan(scaled(Duration.ofSeconds(2)).toMillis());
        }
    }

    @Nested
    @DisplayName("Interrupts, wherever in a wait they arrive")
    class Interrupts {

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
                Object outcome =
                        outcomes.get(i).get(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
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
                outcomes.add(interruptedOnEntry(
                        "interruptible-" + i, new ArrayList<>(), interruptibleWait(waiting, name, i)));
            }
            for (int i = 0; i < WAITS; i++) {
                List<?> outcome = (List<?>)
                        outcomes.get(i).get(scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
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
        private java.util.concurrent.Callable<Object> interruptibleWait(
                DistributedLockFactory client, String name, int i) {
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
                    java.util.concurrent.CompletableFuture<Object> outcome =
                            new java.util.concurrent.CompletableFuture<>();
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
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(
                        ThreadLocalRandom.current().nextInt(300)));
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
                Object outcome =
                        outcomes.get(i).get(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
                assertThat(outcome)
                        .as("lock() %d: [outcome, interrupt status after]", i)
                        .isEqualTo(List.of("acquired", true));
            }
        }
    }

    @Nested
    @DisplayName("Hand-over to a waiter")
    class HandOver {

        @Test
        @DisplayName(
                "a waiter handed the lock by a release is valid on its client no longer than the backend holds it for it")
        void handedOverHoldIsNeverValidLongerThanOnTheBackend() throws Exception {
            // A backend may grant a released lock straight to a waiter of the releasing client,
            // setting the waiter's lease at the release. If the grant is not passed on, the waiter
            // finds it only at its next attempt and counts its lease from then: for a while its
            // client thinks it holds a lock that the backend has already given to someone else.
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            Duration lease = scaled(Duration.ofSeconds(1));
            DistributedLockFactory releasing = client();
            DistributedLockFactory other = client();
            LockHandle first = releasing.acquire(name, leaseOf(lease));
            java.util.concurrent.CompletableFuture<LockHandle> handedOver =
                    new java.util.concurrent.CompletableFuture<>();
            start("waiter", () -> {
                try {
                    handedOver.complete(releasing.acquire(
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
                intruder = other.tryAcquire(name);
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
                Optional<LockHandle> h = other.tryAcquire(name);
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
            Optional<LockHandle> gaveUp = returnsWithin(
                    Duration.ofSeconds(5), () -> holding.tryAcquire(name, waitFor(Duration.ofMillis(300))));
            assertThat(gaveUp).as("a wait on a held lock").isEmpty();
            held.release();
            Optional<LockHandle> next = other.tryAcquire(name);
            assertThat(next).as("another client right after the release").isPresent();
            next.get().release();
        }
    }

    @Nested
    @DisplayName("Fencing tokens")
    class Fencing {

        @Test
        @DisplayName("tokens strictly increase from holder to holder across clients")
        void tokensIncreaseAcrossHolders() throws Exception {
            assume(Capability.FENCING_TOKENS);
            String name = name();
            long last = Long.MIN_VALUE;
            for (int i = 0; i < 10; i++) {
                try (LockHandle h = client().acquire(name, waitFor(Duration.ofSeconds(2)))) {
                    assertThat(h.fencingToken()).isGreaterThan(last);
                    last = h.fencingToken();
                }
            }
        }

        @Test
        @DisplayName("a token after a lapsed lease is greater than the lapsed one")
        void tokensIncreaseAcrossExpiry() throws Exception {
            assume(Capability.FENCING_TOKENS);
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            LockHandle first = client().acquire(name, leaseOf(scaled(Duration.ofMillis(300))));
            LockHandle second = client().acquire(name, waitFor(Duration.ofSeconds(5)));
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        }

        @Test
        @DisplayName("a token after a force release is greater than the released one")
        void tokensIncreaseAcrossForceRelease() throws Exception {
            assume(Capability.FENCING_TOKENS);
            assume(Capability.FORCE_RELEASE);
            String name = name();
            LockHandle first = client().acquire(name, LockOptions.noWait());
            assertThat(client().getLock(name).forceUnlock()).isTrue();
            LockHandle second = client().acquire(name, LockOptions.noWait());
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        }

        @Test
        @DisplayName("a reentrant acquisition keeps the token, for threads and handles")
        void reentrantAcquisitionKeepsTheToken() throws Exception {
            assume(Capability.FENCING_TOKENS);
            DistributedLock lock = client().getLock(name());
            lock.lock();
            long token = lock.fencingToken();
            assertThat(lock.tryLock(scaled(Duration.ofSeconds(2)), null)).isTrue();
            assertThat(lock.fencingToken()).isEqualTo(token);
            lock.unlock();
            assertThat(lock.fencingToken()).isEqualTo(token);
            lock.unlock();

            LockHandle h = client().acquire(name(), LockOptions.noWait());
            long handleToken = h.fencingToken();
            h.acquireAgain();
            assertThat(h.fencingToken()).isEqualTo(handleToken);
            h.close();
        }

        @Test
        @DisplayName(
                "a thread's next hold after a release that failed carries a new token, and its unlock frees the lock")
        void holdAfterAFailedReleaseHasANewToken() throws Exception {
            assume(Capability.FENCING_TOKENS);
            AtomicBoolean failRelease = new AtomicBoolean();
            DistributedLockFactory f = clientOver(new ForwardingLockProvider(provider()) {
                @Override
                public Release release(String lockName, String owner) {
                    if (failRelease.compareAndSet(true, false)) {
                        // The release never reached the backend (a broken connection): the backend still holds it.
                        throw new BackendUnavailableException(lockName, "kit: the release was not sent", null);
                    }
                    return super.release(lockName, owner);
                }
            });
            String name = name();
            DistributedLock lock = f.getLock(name);
            lock.lock();
            long first = lock.fencingToken();
            failRelease.set(true);
            assertThatThrownBy(lock::unlock).isInstanceOf(BackendUnavailableException.class);
            assertThat(lock.isHeldByCurrentThread()).isFalse();

            // The same thread (the same owner on the backend) locks again while its earlier hold is still
            // there: a new hold, which a fenced resource must tell from the one that ended.
            assertThat(lock.tryLock(scaled(Duration.ofSeconds(5)), null)).isTrue();
            assertThat(lock.fencingToken())
                    .as("the token of the hold after the failed release")
                    .isGreaterThan(first);
            lock.unlock();
            assertThat(client().tryAcquire(name))
                    .as("the lock after the unlock of that hold")
                    .isPresent();
        }

        @Test
        @DisplayName("a thread's next hold after an acquisition whose answer was lost frees the lock at its unlock")
        void holdAfterALostAcquisitionAnswerIsReleasedFully() throws Exception {
            AtomicBoolean loseAnswer = new AtomicBoolean();
            DistributedLockFactory f = clientOver(new ForwardingLockProvider(provider()) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    Acquisition a = super.tryAcquire(request);
                    if (loseAnswer.compareAndSet(true, false)) {
                        // The backend acquired, but its answer never came back.
                        throw new BackendUnavailableException(request.name(), "kit: the answer was lost", null);
                    }
                    return a;
                }
            });
            String name = name();
            DistributedLock lock = f.getLock(name);
            loseAnswer.set(true);
            assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, null)).isInstanceOf(BackendUnavailableException.class);
            assertThat(lock.tryLock(scaled(Duration.ofSeconds(5)), null)).isTrue();
            if (has(Capability.FENCING_TOKENS)) {
                assertThat(lock.fencingToken()).isPositive();
            }
            lock.unlock();
            assertThat(client().tryAcquire(name))
                    .as("the lock after the unlock of that hold")
                    .isPresent();
        }

        @Test
        @DisplayName("asking for the token without holding the lock throws IllegalMonitorStateException")
        void tokenWithoutHoldThrows() {
            assume(Capability.FENCING_TOKENS);
            DistributedLock lock = client().getLock(name());
            assertThatThrownBy(lock::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
            assertThatThrownBy(lock::remainingLease).isInstanceOf(IllegalMonitorStateException.class);
        }
    }

    @Nested
    @DisplayName("Ownership")
    class Ownership {

        @Test
        @DisplayName("another thread cannot unlock a thread's hold")
        void anotherThreadCannotUnlock() throws Exception {
            String name = name();
            DistributedLock lock = client().getLock(name);
            lock.lock();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread t = start("intruder", () -> {
                try {
                    lock.unlock();
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            t.join(scaled(Duration.ofSeconds(5)).toMillis());
            assertThat(thrown.get()).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(client().getLock(name).tryLock()).isFalse();
            lock.unlock();
        }

        @Test
        @DisplayName("another client cannot unlock, and the hold survives the attempt")
        void anotherClientCannotUnlock() {
            String name = name();
            DistributedLock lock = client().getLock(name);
            lock.lock();
            assertThatThrownBy(() -> client().getLock(name).unlock()).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(client().getLock(name).tryLock()).isFalse();
            lock.unlock();
        }

        @Test
        @DisplayName("a released handle cannot release again, and closing it again does nothing")
        void releasedHandleCannotReleaseAgain() throws Exception {
            String name = name();
            LockHandle h = client().acquire(name, LockOptions.noWait());
            h.release();
            assertThatThrownBy(h::release).isInstanceOf(IllegalStateException.class);
            assertThatCode(h::close).doesNotThrowAnyException();
            assertThatCode(h::close).doesNotThrowAnyException();
            LockHandle next = client().acquire(name, LockOptions.noWait());
            h.close();
            assertThat(next.isValid()).isTrue();
            assertThat(client().tryAcquire(name)).isEmpty();
        }

        @Test
        @DisplayName("forceUnlock frees anyone's hold and wakes a waiter")
        void forceUnlockFreesAndWakes() throws Exception {
            assume(Capability.FORCE_RELEASE);
            String name = name();
            Duration longLease = scaled(Duration.ofSeconds(30));
            DistributedLock holder = client(longLease, e -> {}).getLock(name);
            holder.lock();
            DistributedLock waiter = client(longLease, e -> {}).getLock(name);
            AtomicLong acquiredAt = new AtomicLong();
            Thread t = start("waiter", () -> {
                waiter.lock();
                acquiredAt.set(System.nanoTime());
            });
            Thread.sleep(scaled(Duration.ofMillis(300)).toMillis());
            long forced = System.nanoTime();
            assertThat(client().getLock(name).forceUnlock()).isTrue();
            t.join(scaled(Duration.ofSeconds(5)).toMillis());
            assertThat(acquiredAt.get()).as("the waiter acquired").isNotZero();
            assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - forced))
                    .isLessThan(scaled(Duration.ofSeconds(2)).toMillis());
            assertThatThrownBy(holder::unlock).isInstanceOf(LockLostException.class);
        }

        @Test
        @DisplayName("forceUnlock of a free lock returns false")
        void forceUnlockOfAFreeLock() {
            assume(Capability.FORCE_RELEASE);
            assertThat(client().getLock(name()).forceUnlock()).isFalse();
        }

        @Test
        @DisplayName("isLocked sees a hold from any client")
        void isLockedSeesAnyHold() {
            assume(Capability.INSPECTION);
            String name = name();
            DistributedLock observer = client().getLock(name);
            assertThat(observer.isLocked()).isFalse();
            DistributedLock lock = client().getLock(name);
            lock.lock();
            assertThat(observer.isLocked()).isTrue();
            lock.unlock();
            assertThat(observer.isLocked()).isFalse();
        }
    }

    @Nested
    @DisplayName("Loss notification")
    class LossNotification {

        @Test
        @DisplayName("a handle's lost() completes with the loss when its lease runs out")
        void lostStageCompletesOnExpiry() throws Exception {
            assume(Capability.EXPLICIT_LEASE);
            String name = name();
            LockHandle h = client().acquire(name, leaseOf(scaled(Duration.ofMillis(300))));
            LockLostException loss = h.lost()
                    .toCompletableFuture()
                    .get(scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
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

    @Nested
    @DisplayName("Input validation")
    class Validation {

        @Test
        @DisplayName("a null, blank, control-character or oversized name is rejected naming the argument")
        void badNamesAreRejected() {
            DistributedLockFactory c = client();
            for (String bad :
                    new String[] {null, "", "   ", "a\u0000b", "line\nbreak", "x".repeat(1_000_000), "\ud800"}) {
                assertThatThrownBy(() -> c.getLock(bad))
                        .as("name %s", bad == null ? null : bad.length() > 20 ? bad.length() + " chars" : bad)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("name");
                assertThatThrownBy(() -> c.tryAcquire(bad))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("name");
            }
        }

        @Test
        @DisplayName("a negative, zero or null lease is rejected naming the argument")
        void badLeasesAreRejected() {
            DistributedLock lock = client().getLock(name());
            for (Duration bad :
                    new Duration[] {Duration.ofMillis(-1), Duration.ZERO, null, Duration.ofSeconds(Long.MAX_VALUE)}) {
                assertThatThrownBy(() -> lock.lock(bad))
                        .as("lease %s", bad)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("lease");
                assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, bad == null ? Duration.ZERO : bad))
                        .isInstanceOf(IllegalArgumentException.class);
            }
            assertThat(lock.isHeldByCurrentThread()).isFalse();
        }

        @Test
        @DisplayName("a negative or null wait is rejected naming the argument")
        @SuppressWarnings("NullAway") // passes null on purpose
        void badWaitsAreRejected() {
            DistributedLock lock = client().getLock(name());
            assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(-1), null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("wait");
            assertThatThrownBy(() -> lock.tryLock(null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("wait");
            assertThatThrownBy(() -> LockOptions.builder().waitAtMost(Duration.ofMillis(-5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("wait");
        }

        @Test
        @DisplayName("contradictory or missing options are rejected")
        @SuppressWarnings("NullAway") // passes null on purpose
        void badOptionsAreRejected() {
            assertThatThrownBy(() -> LockOptions.builder()
                            .watchdogLease(Duration.ofSeconds(3))
                            .renewalInterval(Duration.ofSeconds(3))
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("renewalInterval");
            assertThatThrownBy(() -> client().acquire(name(), null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("options");
            assertThatThrownBy(() -> client().getLock(name()).tryLock(1, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("unit");
        }

        @Test
        @DisplayName("conditions are not supported")
        void conditionsAreNotSupported() {
            assertThatThrownBy(() -> client().getLock(name()).newCondition())
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    @DisplayName("Closing the factory")
    class Closing {

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
            assertThat(millisSince(closed))
                    .isLessThan(scaled(Duration.ofSeconds(3)).toMillis());
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
            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("closed");
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

    @Nested
    @DisplayName("A closed provider")
    class ClosedProvider {

        @Test
        @DisplayName(
                "after close, every call of the provider throws LockException naming the lock; closing again is harmless")
        void everyCallAfterCloseThrowsLockException() {
            String name = name();
            String owner = "kitclosed:h1";
            Duration lease = watchdogLease();
            LockProvider p = provider();
            providers.add(p);
            LockProvider.WakeUpListener listener = new LockProvider.WakeUpListener() {
                @Override
                public void released(@Nullable String grantee) {}

                @Override
                public void missedNotifications() {}
            };
            assertThat(p.tryAcquire(new LockProvider.LockRequest(name, owner, lease, Duration.ZERO))
                            .isAcquired())
                    .as("an attempt before close")
                    .isTrue();
            LockProvider.Subscription subscription = p.subscribe(name, listener);
            Set<Capability> declaredBefore = p.capabilities();
            p.close();
            assertThatCode(p::close).as("closing the provider again").doesNotThrowAnyException();
            assertThatCode(subscription::close)
                    .as("closing a subscription made before")
                    .doesNotThrowAnyException();
            assertThat(p.capabilities()).as("capabilities after close").isEqualTo(declaredBefore);

            Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
            calls.put(
                    "tryAcquire", () -> p.tryAcquire(new LockProvider.LockRequest(name, owner, lease, Duration.ZERO)));
            calls.put(
                    "tryAcquire in a wait",
                    () -> p.tryAcquire(new LockProvider.LockRequest(name, "kitclosed:t2", lease, lease, 1)));
            calls.put("release", () -> p.release(name, owner));
            calls.put("renew", () -> p.renew(List.of(new LockProvider.Renewal(name, owner, lease))));
            calls.put("subscribe", () -> p.subscribe(name, listener));
            if (has(Capability.FORCE_RELEASE)) {
                calls.put("forceRelease", () -> p.forceRelease(name));
            }
            if (has(Capability.INSPECTION)) {
                calls.put("inspect", () -> p.inspect(name));
            }
            calls.forEach((call, body) -> assertClosedFailure(call, name, catchThrowable(body)));
            // abandon is optional: one a provider does not implement may still do nothing.
            Throwable abandon = catchThrowable(() -> p.abandon(name, "kitclosed:t2", 1));
            if (abandon != null) {
                assertClosedFailure("abandon", name, abandon);
            }
        }

        private void assertClosedFailure(String call, String name, Throwable failure) {
            assertThat(failure)
                    .as("what %s of a closed provider threw", call)
                    .isInstanceOf(LockException.class)
                    .isNotInstanceOf(BackendUnavailableException.class);
            assertThat(((LockException) failure).lockName())
                    .as("the lock named by %s's exception", call)
                    .isEqualTo(name);
        }
    }

    @Nested
    @DisplayName("Inspection")
    class Inspection {

        @BeforeEach
        void requireInspection() {
            assume(Capability.INSPECTION);
        }

        /** A provider of its own for raw inspect calls, closed after the test. */
        private LockProvider inspector() {
            LockProvider p = provider();
            clients.add(DistributedLockFactory.create(p));
            return p;
        }

        private List<Integer> holdCounts(LockProvider p, String name) {
            return p.inspect(name)
                    .map(s -> List.copyOf(s.holdCounts().values()))
                    .orElse(List.of());
        }

        @Test
        @DisplayName("inspect follows reentry and release: one owner with the hold count of the moment")
        void inspectionFollowsReentryAndRelease() throws Exception {
            String name = name();
            LockProvider p = inspector();
            DistributedLock lock = client().getLock(name);
            lock.lock();
            assertThat(holdCounts(p, name))
                    .as("hold counts after one acquisition")
                    .containsExactly(1);
            lock.lock();
            lock.lock();
            assertThat(holdCounts(p, name))
                    .as("hold counts after two reentries")
                    .containsExactly(3);
            lock.unlock();
            assertThat(holdCounts(p, name)).as("hold counts after one release").containsExactly(2);
            lock.unlock();
            lock.unlock();
            assertThat(p.inspect(name)).as("after the last release").isEmpty();
        }

        @Test
        @DisplayName(
                "inspect shows the lease of the moment: within what was asked, longer once renewed, gone once lapsed")
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
            assertThat(renewed)
                    .as("remaining lease after a renewal to 20 s")
                    .isGreaterThan(scaled(Duration.ofSeconds(10)));
            h.extend(lease);
            await("the lapse seen by inspect")
                    .atMost(scaled(Duration.ofMillis(2500)))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> p.inspect(name).isEmpty());
        }

        @Test
        @DisplayName("inspect neither blocks nor holds up the other calls of its client")
        void inspectionDoesNotBlockTheClient() throws Exception {
            String held = name();
            client().acquire(held, LockOptions.noWait());
            LockProvider p = provider();
            DistributedLockFactory client = DistributedLockFactory.builder(p)
                    .defaultOptions(
                            LockOptions.builder().watchdogLease(watchdogLease()).build())
                    .build();
            clients.add(client);
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
        }
    }

    @Nested
    @DisplayName("Inspection through the factory")
    class OperatorInspection {

        @BeforeEach
        void requireInspection() {
            assume(Capability.INSPECTION);
        }

        private LockInfo inspected(DistributedLockFactory observer, String name) {
            return observer.inspect(name)
                    .orElseThrow(() -> new AssertionError("a held lock inspected as free: " + name));
        }

        @Test
        @DisplayName(
                "inspect shows the holder, its hold count after reentry, its fencing token and a lease within bounds; empty once released")
        void inspectShowsHolderCountTokenAndLease() throws Exception {
            String name = name();
            DistributedLockFactory holder = client();
            DistributedLockFactory observer = client();
            DistributedLock lock = holder.getLock(name);
            lock.lock();
            lock.lock();
            LockInfo info = inspected(observer, name);
            assertThat(info.name()).isEqualTo(name);
            assertThat(info.holdCount()).as("hold count after one reentry").isEqualTo(2);
            assertThat(info.owner()).as("owner id").startsWith(info.clientId() + ":");
            assertThat(info.fencingToken())
                    .as("token of the holder")
                    .isEqualTo(has(Capability.FENCING_TOKENS) ? lock.fencingToken() : 0L);
            assertThat(info.leaseLeft())
                    .as("lease left of a %s watchdog lease", watchdogLease())
                    .isPositive()
                    .isLessThanOrEqualTo(watchdogLease());
            assertThat(info.waiters()).as("waiters (-1: unknown)").isIn(-1, 0);
            lock.unlock();
            assertThat(inspected(observer, name).holdCount())
                    .as("hold count after one release")
                    .isEqualTo(1);
            lock.unlock();
            assertThat(observer.inspect(name)).as("after the last release").isEmpty();
            assertThat(observer.inspect(name() + ":never-used"))
                    .as("a name never used")
                    .isEmpty();
        }

        @Test
        @DisplayName("inspect tells holders apart: one client id per factory, one owner per thread or handle")
        void inspectTellsHoldersApart() throws Exception {
            DistributedLockFactory a = client();
            DistributedLockFactory b = client();
            String byThread = name();
            String byHandle = name();
            String byOther = name();
            DistributedLock lock = a.getLock(byThread);
            lock.lock();
            LockHandle handle = a.acquire(byHandle, LockOptions.noWait());
            LockHandle other = b.acquire(byOther, LockOptions.noWait());
            LockInfo thread = inspected(b, byThread);
            LockInfo handled = inspected(b, byHandle);
            LockInfo elsewhere = inspected(a, byOther);
            assertThat(handled.clientId())
                    .as("client ids of two holds of one factory")
                    .isEqualTo(thread.clientId());
            assertThat(handled.owner())
                    .as("owners of a thread hold and a handle")
                    .isNotEqualTo(thread.owner());
            assertThat(elsewhere.clientId()).as("client ids of two factories").isNotEqualTo(thread.clientId());
            if (has(Capability.FENCING_TOKENS)) {
                assertThat(handled.fencingToken()).isEqualTo(handle.fencingToken());
                assertThat(elsewhere.fencingToken()).isEqualTo(other.fencingToken());
            }
            if (has(Capability.EXPLICIT_LEASE)) {
                String leased = name();
                Duration lease = scaled(Duration.ofSeconds(20));
                a.acquire(leased, leaseOf(lease));
                assertThat(inspected(b, leased).leaseLeft())
                        .as("lease left of a fresh %s lease", lease)
                        .isGreaterThan(lease.dividedBy(2))
                        .isLessThanOrEqualTo(lease);
            }
        }

        @Test
        @DisplayName("inspect counts the owners waiting, as they come and go (when the backend can tell)")
        void inspectCountsWaiters() throws Exception {
            String name = name();
            DistributedLockFactory holder = client();
            LockHandle held = holder.acquire(name, LockOptions.noWait());
            DistributedLockFactory observer = client();
            LockInfo first = inspected(observer, name);
            assumeTrue(first.waitersKnown(), "the provider cannot tell how many wait");
            assertThat(first.waiters()).as("waiters before anyone waits").isZero();
            CountDownLatch letGo = new CountDownLatch(1);
            AtomicInteger served = new AtomicInteger();
            for (int i = 0; i < 2; i++) {
                DistributedLockFactory waiter = client();
                start("waiter-" + i, () -> {
                    try {
                        LockHandle h = waiter.acquire(name, waitFor(Duration.ofSeconds(30)));
                        served.incrementAndGet();
                        letGo.await();
                        h.release();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            await("two waiters seen by inspect")
                    .atMost(scaled(Duration.ofSeconds(10)))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> inspected(observer, name).waiters() == 2);
            held.release();
            await("the lock with the next waiter, one still waiting")
                    .atMost(scaled(Duration.ofSeconds(10)))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> observer.inspect(name)
                            .filter(i -> !i.clientId().equals(first.clientId()) && i.waiters() == 1)
                            .isPresent());
            letGo.countDown();
            await("both waiters served and gone")
                    .atMost(scaled(Duration.ofSeconds(10)))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> served.get() == 2 && observer.inspect(name).isEmpty());
        }

        @Test
        @DisplayName("forceRelease frees a lock whoever holds it and answers whether it was held")
        void forceReleaseFreesTheLock() throws Exception {
            assume(Capability.FORCE_RELEASE);
            String name = name();
            LockHandle h = client().acquire(name, LockOptions.noWait());
            DistributedLockFactory operator = client();
            assertThat(operator.forceRelease(name))
                    .as("force release of a held lock")
                    .isTrue();
            assertThat(operator.inspect(name)).as("after the force release").isEmpty();
            assertThat(operator.forceRelease(name))
                    .as("force release of a free lock")
                    .isFalse();
            await("the holder told of its loss")
                    .atMost(scaled(Duration.ofSeconds(10)))
                    .until(() -> !h.isValid());
        }

        @Test
        @DisplayName("inspect of a bad name is refused with IllegalArgumentException")
        @SuppressWarnings("NullAway") // passes null on purpose
        void inspectRefusesBadNames() {
            DistributedLockFactory c = client();
            assertThatThrownBy(() -> c.inspect(""))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("name");
            assertThatThrownBy(() -> c.inspect(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("name");
        }
    }

    @Nested
    @DisplayName("Listing held locks")
    class Listing {

        @BeforeEach
        void requireListing() {
            assume(Capability.LISTING);
        }

        private Set<String> listed(DistributedLockFactory f, String prefix) {
            try (Stream<LockInfo> locks = f.locks(prefix)) {
                return locks.map(LockInfo::name).collect(Collectors.toSet());
            }
        }

        /** Every lock {@code p.list} finds under {@code prefix}, page by page (the core's own filter left out). */
        private Set<String> listedBy(LockProvider p, String prefix) {
            Set<String> names = new HashSet<>();
            String cursor = null;
            do {
                LockProvider.ListPage page = p.list(prefix, cursor, 100);
                page.locks().forEach(h -> names.add(h.name()));
                cursor = page.next();
            } while (cursor != null);
            return names;
        }

        /** Takes each name for a new handle of {@code f}. */
        private void holdAll(DistributedLockFactory f, Collection<String> names) throws InterruptedException {
            for (String n : names) {
                f.acquire(n, LockOptions.noWait());
            }
        }

        @Test
        @DisplayName(
                "locks(prefix) lists the held locks of that prefix, as inspect sees them, and no free or lapsed lock")
        void listsHeldLocksByPrefix() throws Exception {
            String prefix = name() + "/";
            DistributedLockFactory holder = client();
            List<String> held = List.of(prefix + "a", prefix + "b", prefix + "c/d");
            holdAll(holder, held);
            DistributedLock reentered = holder.getLock(prefix + "r");
            reentered.lock();
            reentered.lock();
            String released = prefix + "released";
            holder.acquire(released, LockOptions.noWait()).release();
            String outside = name() + "/a";
            holder.acquire(outside, LockOptions.noWait());
            Set<String> expected = new HashSet<>(held);
            expected.add(prefix + "r");
            if (has(Capability.EXPLICIT_LEASE)) {
                String lapsed = prefix + "lapsed";
                holder.acquire(lapsed, leaseOf(scaled(Duration.ofMillis(200))));
                await("the lapse")
                        .atMost(scaled(Duration.ofSeconds(5)))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> !has(Capability.INSPECTION)
                                || holder.inspect(lapsed).isEmpty());
            }
            DistributedLockFactory operator = client();
            assertThat(listed(operator, prefix))
                    .as("locks held under %s", prefix)
                    .isEqualTo(expected);
            assertThat(listed(operator, prefix + "c")).as("a longer prefix").containsExactly(prefix + "c/d");
            assertThat(listed(operator, ""))
                    .as("everything")
                    .containsAll(expected)
                    .contains(outside)
                    .doesNotContain(released);
            try (Stream<LockInfo> locks = operator.locks(prefix)) {
                List<LockInfo> infos = locks.toList();
                for (LockInfo info : infos) {
                    assertThat(info.holdCount())
                            .as("hold count of %s", info.name())
                            .isEqualTo(info.name().equals(prefix + "r") ? 2 : 1);
                    assertThat(info.leaseLeft())
                            .as("lease left of %s", info.name())
                            .isPositive();
                    if (has(Capability.INSPECTION)) {
                        LockInfo inspected = operator.inspect(info.name()).orElseThrow();
                        assertThat(info.owner()).isEqualTo(inspected.owner());
                        assertThat(info.fencingToken()).isEqualTo(inspected.fencingToken());
                    }
                }
                assertThat(infos)
                        .extracting(LockInfo::clientId)
                        .as("one holder")
                        .containsOnly(infos.get(0).clientId());
            }
            reentered.unlock();
            reentered.unlock();
            assertThat(listed(operator, prefix)).as("after a release").doesNotContain(prefix + "r");
        }

        @Test
        @DisplayName("a prefix is taken literally: glob and LIKE characters (* ? [ ] \\ % _ { }) match only themselves")
        void prefixIsLiteral() throws Exception {
            String p = name() + "/";
            List<String> names = List.of(
                    p + "a*1",
                    p + "ab1",
                    p + "a?2",
                    p + "ac2",
                    p + "a_3",
                    p + "ad3",
                    p + "a%4",
                    p + "ae4",
                    p + "[a]5",
                    p + "a5",
                    p + "\\6",
                    p + "f6",
                    p + "{7}",
                    p + "}8",
                    p + "%7B9");
            holdAll(client(), names);
            DistributedLockFactory operator = client();
            assertThat(listed(operator, p)).as("all of them").isEqualTo(Set.copyOf(names));
            LockProvider provider = provider();
            providers.add(provider);
            for (String special : List.of("a*", "a?", "a_", "a%", "[a]", "\\", "{", "}", "%7B")) {
                Set<String> expected =
                        names.stream().filter(n -> n.startsWith(p + special)).collect(Collectors.toSet());
                assertThat(expected).as("names starting with %s", special).hasSize(1);
                assertThat(listed(operator, p + special))
                        .as("locks(\"…%s\")", special)
                        .isEqualTo(expected);
                assertThat(listedBy(provider, p + special))
                        .as("the provider's list(\"…%s\")", special)
                        .isEqualTo(expected);
            }
        }

        @Test
        @DisplayName("list pages: 2.5 pages of held locks come back, over more than one page, each page bounded")
        void listingSpansPages() throws Exception {
            String prefix = name() + "/";
            int pageSize = 4;
            Set<String> held = new HashSet<>();
            for (int i = 0; i < 10; i++) {
                held.add(prefix + i);
            }
            DistributedLockFactory holder = client();
            holdAll(holder, held);
            for (int i = 0; i < 3; i++) {
                holder.acquire(prefix + "free" + i, LockOptions.noWait()).release();
            }
            LockProvider p = provider();
            providers.add(p);
            Set<String> seen = new HashSet<>();
            String cursor = null;
            int pages = 0;
            do {
                LockProvider.ListPage page = p.list(prefix, cursor, pageSize);
                pages++;
                assertThat(pages).as("pages of a 13-lock listing").isLessThan(1000);
                assertThat(page.locks().size())
                        .as("locks on one page of size %d", pageSize)
                        .isLessThanOrEqualTo(4 * pageSize);
                for (LockProvider.HeldLock h : page.locks()) {
                    seen.add(h.name());
                    assertThat(h.state().holdCounts().values())
                            .as("hold counts of %s", h.name())
                            .containsExactly(1);
                }
                cursor = page.next();
            } while (cursor != null);
            assertThat(seen).as("locks listed").isEqualTo(held);
            assertThat(pages).as("pages").isGreaterThanOrEqualTo(2);
        }

        @Test
        @DisplayName("the stream is lazy and closing it ends the listing: no page is fetched before use or after close")
        void streamIsLazyAndEndsOnClose() throws Exception {
            String prefix = name() + "/";
            holdAll(client(), List.of(prefix + "a", prefix + "b", prefix + "c"));
            AtomicInteger pages = new AtomicInteger();
            LockProvider counting = new io.lockkit.spi.ForwardingLockProvider(provider()) {
                @Override
                public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
                    pages.incrementAndGet();
                    return super.list(prefix, cursor, pageSize);
                }
            };
            DistributedLockFactory operator = DistributedLockFactory.create(counting);
            clients.add(operator);
            Stream<LockInfo> unused = operator.locks(prefix);
            unused.close();
            assertThat(pages).as("pages fetched by a stream never used").hasValue(0);
            Stream<LockInfo> locks = operator.locks(prefix);
            java.util.Iterator<LockInfo> it = locks.iterator();
            assertThat(it.hasNext()).isTrue();
            assertThat(it.next().name()).startsWith(prefix);
            int fetched = pages.get();
            locks.close();
            assertThat(it.hasNext()).as("a closed listing has more").isFalse();
            assertThat(pages).as("pages fetched after close").hasValue(fetched);
        }

        @Test
        @DisplayName("locks(null) is refused with IllegalArgumentException; a closed factory refuses to list")
        @SuppressWarnings("NullAway") // passes null on purpose
        void listingRefusesBadPrefixAndClosedFactory() throws Exception {
            DistributedLockFactory c = client();
            assertThatThrownBy(() -> c.locks(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("prefix");
            Stream<LockInfo> opened = c.locks(name());
            c.close();
            assertThatThrownBy(() -> c.locks("")).isInstanceOf(LockException.class);
            assertThatThrownBy(() -> opened.count())
                    .as("a stream of a factory closed since")
                    .isInstanceOf(LockException.class);
        }
    }

    @Nested
    @DisplayName("Declared capabilities")
    class Capabilities {

        @Test
        @DisplayName("without fencing tokens, asking for one is refused loudly")
        void absentFencingIsRefused() throws Exception {
            assumeFalse(has(Capability.FENCING_TOKENS), "the provider has fencing tokens");
            DistributedLock lock = client().getLock(name());
            lock.lock();
            assertThatThrownBy(lock::fencingToken).isInstanceOf(UnsupportedOperationException.class);
            lock.unlock();
        }

        @Test
        @DisplayName("without force release, forceUnlock is refused loudly")
        void absentForceReleaseIsRefused() {
            assumeFalse(has(Capability.FORCE_RELEASE), "the provider can force-release");
            assertThatThrownBy(() -> client().getLock(name()).forceUnlock())
                    .isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        @DisplayName("without explicit leases, a lease is refused loudly")
        void absentExplicitLeaseIsRefused() {
            assumeFalse(has(Capability.EXPLICIT_LEASE), "the provider takes explicit leases");
            assertThatThrownBy(() -> client().getLock(name()).lock(Duration.ofSeconds(5)))
                    .isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        @DisplayName("without inspection, isLocked is refused loudly")
        void absentInspectionIsRefused() {
            assumeFalse(has(Capability.INSPECTION), "the provider can inspect locks");
            assertThatThrownBy(() -> client().getLock(name()).isLocked())
                    .isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> client().inspect(name())).isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        @DisplayName("without listing, locks(prefix) is refused loudly")
        void absentListingIsRefused() {
            assumeFalse(has(Capability.LISTING), "the provider can list locks");
            assertThatThrownBy(() -> client().locks("")).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    @DisplayName("Leadership")
    class Leadership extends LeadershipContract {
        Leadership() {
            super(LockContractTest.this);
        }
    }

    @Nested
    @DisplayName("Backend outage")
    class Outage {

        @BeforeEach
        void requireOutageHooks() {
            assumeTrue(canStopBackend(), "the test class cannot stop its backend");
        }

        @Test
        @DisplayName("while the backend is down, attempts fail with BackendUnavailableException in bounded time")
        void attemptsFailWhileDown() throws Exception {
            DistributedLockFactory c = client();
            String name = name();
            stopBackend();
            try {
                long start = System.nanoTime();
                assertThatThrownBy(() -> c.getLock(name).tryLock(scaled(Duration.ofSeconds(1)), null))
                        .isInstanceOf(BackendUnavailableException.class);
                assertThat(millisSince(start))
                        .isLessThan(scaled(Duration.ofSeconds(10)).toMillis());
            } finally {
                startBackend();
            }
        }

        @Test
        @DisplayName("a holder learns of an outage by its lease deadline")
        void holderLearnsOfOutageByDeadline() throws Exception {
            String name = name();
            LockHandle h = client().acquire(name, LockOptions.noWait());
            stopBackend();
            try {
                long start = System.nanoTime();
                h.lost()
                        .toCompletableFuture()
                        .get(watchdogLease().multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
                assertThat(millisSince(start))
                        .isLessThanOrEqualTo(watchdogLease()
                                .plus(scaled(Duration.ofMillis(500)))
                                .toMillis());
                assertThat(h.isValid()).isFalse();
            } finally {
                startBackend();
            }
        }

        @Test
        @DisplayName("after the backend returns, locks work again and tokens still increase")
        void locksWorkAfterRestart() throws Exception {
            String name = name();
            DistributedLockFactory c = client();
            long before;
            try (LockHandle h = c.acquire(name, LockOptions.noWait())) {
                before = has(Capability.FENCING_TOKENS) ? h.fencingToken() : 0;
                stopBackend();
                startBackend();
                assertThatThrownBy(h::release).isInstanceOf(LockLostException.class);
            }
            LockHandle after = client().acquire(name, waitFor(Duration.ofSeconds(5)));
            assertThat(after.isValid()).isTrue();
            if (has(Capability.FENCING_TOKENS)) {
                assertThat(after.fencingToken()).isGreaterThan(before);
            }
        }
    }
}
