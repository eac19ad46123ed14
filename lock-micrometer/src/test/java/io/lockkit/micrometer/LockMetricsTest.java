package io.lockkit.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedReadWriteLock;
import io.lockkit.Leadership;
import io.lockkit.LeadershipOptions;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("LockMetrics over a real factory (in-JVM provider) and a SimpleMeterRegistry")
class LockMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private DistributedLockFactory factory(LocalLockProvider provider, LockMetrics metrics, LockOptions defaults) {
        DistributedLockFactory f = DistributedLockFactory.builder(provider)
                .observer(metrics)
                .defaultOptions(defaults)
                .build();
        toClose.add(f);
        return f;
    }

    private DistributedLockFactory bound(LockMetrics metrics) {
        metrics.bindTo(registry);
        return factory(new LocalLockProvider(), metrics, LockOptions.DEFAULTS);
    }

    private Thread start(String name, Runnable work) {
        Thread t = new Thread(work, name);
        t.setDaemon(true);
        t.start();
        toClose.add(() -> {
            t.interrupt();
            t.join(5_000);
        });
        return t;
    }

    private long acquires(String outcome) {
        return registry.get(LockMetrics.ACQUIRE)
                .tag(LockMetrics.OUTCOME_TAG, outcome)
                .timer()
                .count();
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    /** Holds {@code name} on another thread of {@code locks} until the returned latch is counted down. */
    private CountDownLatch holdElsewhere(DistributedLockFactory locks, String name) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        start("holder", () -> {
            DistributedLock lock = locks.getLock(name);
            lock.lock();
            try {
                held.countDown();
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        });
        assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();
        return done;
    }

    @Test
    @DisplayName("acquisitions are timed by outcome: acquired, reentered, busy, timed_out, interrupted")
    void acquisitionsAreTimedByOutcome() throws Exception {
        DistributedLockFactory locks = bound(LockMetrics.create());
        DistributedLock lock = locks.getLock("job");
        lock.lock();
        lock.lock();
        lock.unlock();
        lock.unlock();
        assertThat(acquires("acquired")).isEqualTo(1);
        assertThat(acquires("reentered")).isEqualTo(1);

        CountDownLatch release = holdElsewhere(locks, "job");
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(30, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(acquires("busy")).isEqualTo(1);
        assertThat(acquires("timed_out")).isEqualTo(1);
        Timer timedOut = registry.get(LockMetrics.ACQUIRE)
                .tag(LockMetrics.OUTCOME_TAG, "timed_out")
                .timer();
        assertThat(timedOut.totalTime(TimeUnit.MILLISECONDS))
                .as("the wait is timed")
                .isGreaterThanOrEqualTo(25);

        AtomicReference<Throwable> waiter = new AtomicReference<>();
        Thread t = start("waiter", () -> {
            try {
                locks.getLock("job").lockInterruptibly();
            } catch (Throwable e) {
                waiter.set(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> gauge(LockMetrics.WAITERS) == 1);
        t.interrupt();
        await().atMost(Duration.ofSeconds(5)).until(() -> acquires("interrupted") == 1);
        assertThat(waiter.get()).isInstanceOf(InterruptedException.class);
        release.countDown();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> registry.get(LockMetrics.HELD).timer().count() == 2);
        assertThat(acquires("acquired")).isEqualTo(2);
    }

    @Test
    @DisplayName("holds are timed; the active-holds and waiters gauges follow holds and waiting threads")
    void holdsAndWaitersAreGauged() throws Exception {
        DistributedLockFactory locks = bound(LockMetrics.create());
        assertThat(gauge(LockMetrics.HOLDS_ACTIVE)).isZero();
        LockHandle a = locks.acquire("a");
        LockHandle b = locks.acquire("b");
        assertThat(gauge(LockMetrics.HOLDS_ACTIVE)).isEqualTo(2);
        a.acquireAgain();
        assertThat(gauge(LockMetrics.HOLDS_ACTIVE))
                .as("a reentrant acquisition is no new hold")
                .isEqualTo(2);
        start("waiter", () -> {
            try (LockHandle h = locks.acquire("b")) {
                assertThat(h.isValid()).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> gauge(LockMetrics.WAITERS) == 1);
        b.release();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> registry.get(LockMetrics.HELD).timer().count() == 2);
        assertThat(gauge(LockMetrics.WAITERS)).isZero();
        a.release();
        assertThat(gauge(LockMetrics.HOLDS_ACTIVE)).isEqualTo(1);
        a.release();
        assertThat(gauge(LockMetrics.HOLDS_ACTIVE)).isZero();
        Timer held = registry.get(LockMetrics.HELD).timer();
        assertThat(held.count()).isEqualTo(3);
        assertThat(held.totalTime(TimeUnit.NANOSECONDS)).isPositive();
    }

    @Test
    @DisplayName(
            "losses are counted by cause (force_released, not_held after a backend restart, factory_closed); failed renewals are counted")
    void lossesAreCountedByCause() throws Exception {
        LockMetrics metrics = LockMetrics.create();
        metrics.bindTo(registry);
        LocalLockProvider provider = new LocalLockProvider();
        DistributedLockFactory locks = DistributedLockFactory.builder(provider)
                .observer(metrics)
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofMillis(1500))
                        .build())
                .build();
        try {
            LockHandle forced = locks.acquire("forced");
            assertThat(locks.getLock("forced").forceUnlock()).isTrue();
            assertThat(forced.lost()).isCompleted();

            LockHandle restarted = locks.acquire("restarted");
            provider.stopBackend();
            await().atMost(Duration.ofSeconds(5))
                    .until(() ->
                            registry.get(LockMetrics.RENEWAL_FAILURES).counter().count() >= 1);
            provider.startBackend();
            restarted.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(registry.get(LockMetrics.BACKEND_UNAVAILABLE).counter().count())
                    .isGreaterThanOrEqualTo(1);

            locks.acquire("left-open");
            assertThat(gauge(LockMetrics.HOLDS_ACTIVE)).isEqualTo(1);
        } finally {
            locks.close();
        }
        assertThat(lost("force_released")).isEqualTo(1);
        assertThat(lost("factory_closed")).isEqualTo(1);
        // Renewed within its lease after the restart: the backend no longer had it. On a machine too
        // loaded to renew within 1.5 s the watchdog reports the lease run out instead.
        assertThat(lost("not_held") + lost("lease_expired")).isEqualTo(1);
        assertThat(gauge(LockMetrics.HOLDS_ACTIVE)).isZero();
    }

    private double lost(String cause) {
        return registry.get(LockMetrics.LOST)
                .tag(LockMetrics.CAUSE_TAG, cause)
                .counter()
                .count();
    }

    @Test
    @DisplayName(
            "every primitive's holds are measured under their kind: exclusive, fair, read, permits; only the exclusive meters exist before")
    void everyPrimitiveIsMeasuredUnderItsKind() throws Exception {
        DistributedLockFactory locks = bound(LockMetrics.create());
        assertThat(registry.getMeters())
                .as("meters before any hold")
                .allSatisfy(
                        m -> assertThat(m.getId().getTag(LockMetrics.KIND_TAG)).isIn(null, "exclusive"));

        locks.acquire("plain").close();
        DistributedLock fair = locks.getFairLock("fair");
        fair.lock();
        fair.unlock();
        DistributedReadWriteLock rw = locks.getReadWriteLock("config");
        LockHandle r1 = rw.acquireRead(LockOptions.DEFAULTS);
        LockHandle r2 = rw.acquireRead(LockOptions.DEFAULTS);
        LockHandle permits = locks.getSemaphore("exports", 5).acquire(3, LockOptions.DEFAULTS);
        assertThat(registry.get(LockMetrics.HOLDS_ACTIVE)
                        .tag(LockMetrics.KIND_TAG, "read")
                        .gauge()
                        .value())
                .isEqualTo(2);
        assertThat(registry.get(LockMetrics.HOLDS_ACTIVE)
                        .tag(LockMetrics.KIND_TAG, "permits")
                        .gauge()
                        .value())
                .isEqualTo(1);
        r1.release();
        r2.release();
        permits.release();

        for (String kind : List.of("exclusive", "fair", "read", "permits")) {
            long expected = kind.equals("read") ? 2 : 1;
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tags(LockMetrics.KIND_TAG, kind, LockMetrics.OUTCOME_TAG, "acquired")
                            .timer()
                            .count())
                    .as("acquisitions of kind %s", kind)
                    .isEqualTo(expected);
            assertThat(registry.get(LockMetrics.HELD)
                            .tag(LockMetrics.KIND_TAG, kind)
                            .timer()
                            .count())
                    .as("holds of kind %s", kind)
                    .isEqualTo(expected);
            assertThat(registry.get(LockMetrics.HOLDS_ACTIVE)
                            .tag(LockMetrics.KIND_TAG, kind)
                            .gauge()
                            .value())
                    .isZero();
        }
    }

    @Test
    @DisplayName("the lock name is no tag by default; a name mapping adds a lock tag with its values only")
    void lockNameIsATagOnlyThroughAMapping() throws Exception {
        DistributedLockFactory plain = bound(LockMetrics.create());
        plain.acquire("order:1").close();
        assertThat(registry.getMeters())
                .allSatisfy(
                        m -> assertThat(m.getId().getTag(LockMetrics.LOCK_TAG)).isNull());

        SimpleMeterRegistry tagged = new SimpleMeterRegistry();
        LockMetrics metrics = LockMetrics.builder()
                .tags(Tags.of("factory", "orders"))
                .lockNameTag(name -> name.startsWith("order:") ? "order" : "other")
                .build();
        metrics.bindTo(tagged);
        DistributedLockFactory locks = factory(new LocalLockProvider(), metrics, LockOptions.DEFAULTS);
        locks.acquire("order:1").close();
        locks.acquire("order:2").close();
        locks.acquire("user:1").close();
        assertThat(tagged.get(LockMetrics.ACQUIRE)
                        .tags("lock", "order", "outcome", "acquired", "factory", "orders")
                        .timer()
                        .count())
                .isEqualTo(2);
        assertThat(tagged.get(LockMetrics.ACQUIRE)
                        .tags("lock", "other", "outcome", "acquired")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(tagged.get(LockMetrics.HELD).tags("lock", "order").timer().count())
                .isEqualTo(2);
        assertThat(tagged.get(LockMetrics.HOLDS_ACTIVE)
                        .tags("lock", "order")
                        .gauge()
                        .value())
                .isZero();
        assertThat(tagged.get(LockMetrics.LOST)
                        .tags("lock", "other", "cause", "not_held")
                        .counter()
                        .count())
                .isZero();
        assertThat(tagged.getMeters())
                .extracting(m -> m.getId().getTag(LockMetrics.LOCK_TAG))
                .as("tag values come from the mapping only")
                .containsOnly("order", "other", null);
        assertThat(tagged.getMeters())
                .allSatisfy(m -> assertThat(m.getId().getTag("factory")).isEqualTo("orders"));
        assertThat(tagged.get(LockMetrics.RENEWAL_FAILURES).counter().getId().getTag(LockMetrics.LOCK_TAG))
                .as("renewal batches are about several locks")
                .isNull();
    }

    @Test
    @DisplayName(
            "meters are created once: a lock call looks nothing up in the registry (with a mapping: once per tag value)")
    void metersAreCreatedOnce() throws Exception {
        LockMetrics metrics = LockMetrics.create();
        DistributedLockFactory locks = bound(metrics);
        int created = registry.getMeters().size();
        assertThat(created)
                .as("every meter exists once bound, before any lock call")
                .isEqualTo(14);
        registry.clear();
        locks.acquire("x").close();
        assertThat(registry.getMeters())
                .as("a lookup would have registered the meter again")
                .isEmpty();

        SimpleMeterRegistry tagged = new SimpleMeterRegistry();
        LockMetrics byTag =
                LockMetrics.builder().lockNameTag(name -> name.substring(0, 1)).build();
        byTag.bindTo(tagged);
        DistributedLockFactory tagLocks = factory(new LocalLockProvider(), byTag, LockOptions.DEFAULTS);
        tagLocks.acquire("a1").close();
        tagged.clear();
        tagLocks.acquire("a2").close();
        assertThat(tagged.getMeters()).as("tag value a is cached").isEmpty();
        tagLocks.acquire("b1").close();
        assertThat(tagged.getMeters())
                .extracting(m -> m.getId().getTag(LockMetrics.LOCK_TAG))
                .containsOnly("b");
        assertThat(tagged.get(LockMetrics.HELD).tags("lock", "b").timer().count())
                .isEqualTo(1);
    }

    @Test
    @DisplayName("a registry whose meter creation throws never fails a lock call")
    void throwingRegistryDoesNotFailLockCalls() throws Exception {
        LockMetrics metrics = LockMetrics.builder().lockNameTag(name -> "all").build();
        metrics.bindTo(brokenRegistry()); // with a mapping, the timers are created at the first lock call
        DistributedLockFactory locks = factory(new LocalLockProvider(), metrics, LockOptions.DEFAULTS);
        for (int i = 0; i < 3; i++) {
            try (LockHandle h = locks.acquire("job")) {
                assertThat(h.isValid()).isTrue();
            }
            DistributedLock lock = locks.getLock("job");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }

        LockMetrics unmapped = LockMetrics.create();
        assertThatThrownBy(() -> unmapped.bindTo(brokenRegistry()))
                .as("the application's own bindTo call sees it")
                .hasMessage("registry out of order");
        DistributedLockFactory other = factory(new LocalLockProvider(), unmapped, LockOptions.DEFAULTS);
        other.acquire("job").close();
    }

    /** A registry whose timers cannot be created. */
    private static SimpleMeterRegistry brokenRegistry() {
        return new SimpleMeterRegistry() {
            @Override
            protected Timer newTimer(Meter.Id id, DistributionStatisticConfig config, PauseDetector pauseDetector) {
                throw new IllegalStateException("registry out of order");
            }
        };
    }

    @Test
    @DisplayName("a name mapping that throws (or returns null) never fails a lock call")
    void throwingMappingDoesNotFailLockCalls() throws Exception {
        LockMetrics metrics = LockMetrics.builder()
                .lockNameTag(name -> {
                    if (name.startsWith("bad")) {
                        throw new IllegalArgumentException("no tag for " + name);
                    }
                    return name.startsWith("null") ? nothing() : "good";
                })
                .build();
        metrics.bindTo(registry);
        DistributedLockFactory locks = factory(new LocalLockProvider(), metrics, LockOptions.DEFAULTS);
        for (String name : new String[] {"bad", "null", "good"}) {
            try (LockHandle h = locks.acquire(name)) {
                assertThat(h.isValid()).isTrue();
            }
            DistributedLock lock = locks.getLock(name);
            lock.lock();
            lock.unlock();
        }
        assertThat(registry.get(LockMetrics.ACQUIRE)
                        .tags("lock", "good", "outcome", "acquired")
                        .timer()
                        .count())
                .isEqualTo(2);
    }

    @SuppressWarnings("NullAway") // the test of a mapping that breaks its contract
    private static String nothing() {
        return null;
    }

    @Test
    @DisplayName("the example of docs/operating.md: metrics with a lock tag, bound, then registered on the factory")
    void guideExample() throws Exception {
        LocalLockProvider provider = new LocalLockProvider();
        // guide:metrics-begin
        MeterRegistry registry = new SimpleMeterRegistry(); // the application's registry
        LockMetrics metrics = LockMetrics.builder()
                .lockNameTag(name -> name.startsWith("order:") ? "order" : "other")
                .build();
        metrics.bindTo(registry);
        DistributedLockFactory locks =
                DistributedLockFactory.builder(provider).observer(metrics).build();
        // guide:metrics-end
        toClose.add(locks);
        locks.acquire("order:4711").close();
        assertThat(registry.get("lockkit.acquire")
                        .tags("lock", "order", "outcome", "acquired")
                        .timer()
                        .count())
                .isEqualTo(1);
    }

    @Test
    @DisplayName("bad arguments and a second registry are refused, naming the argument")
    void badInputIsRefused() {
        LockMetrics metrics = LockMetrics.create();
        metrics.bindTo(registry);
        metrics.bindTo(registry);
        assertThatThrownBy(() -> metrics.bindTo(new SimpleMeterRegistry()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CompositeMeterRegistry");
        assertThatThrownBy(() -> metrics.bindTo(nullOf()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("registry");
        assertThatThrownBy(() -> LockMetrics.builder().lockNameTag(nullOf()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mapping");
        assertThatThrownBy(() -> LockMetrics.builder().tags(nullOf()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tags");
        assertThat(metrics.toString()).contains("bound to");
    }

    @SuppressWarnings({"NullAway", "TypeParameterUnusedInFormals"}) // bad input on purpose
    private static <T> T nullOf() {
        return null;
    }

    @Test
    @DisplayName("close removes every meter it made, per tag value too, and makes none afterwards")
    void closeRemovesTheMeters() throws Exception {
        LockMetrics metrics = LockMetrics.builder()
                .lockNameTag(name -> name.startsWith("order:") ? "order" : "other")
                .build();
        metrics.bindTo(registry);
        DistributedLockFactory locks = factory(new LocalLockProvider(), metrics, LockOptions.DEFAULTS);
        locks.acquire("order:1", LockOptions.noWait()).close();
        locks.acquire("user:1", LockOptions.noWait()).close();
        assertThat(lockkitMeters()).contains(LockMetrics.ACQUIRE, LockMetrics.HOLDS_ACTIVE, LockMetrics.WAITERS);

        locks.close();
        metrics.close();
        assertThat(lockkitMeters()).isEmpty();

        metrics.acquired("order:2", 1, 1, false);
        metrics.lost(
                "late:1",
                1,
                io.lockkit.LockObserver.LossCause.LEASE_EXPIRED,
                new io.lockkit.LockLostException("late:1", 1, "late"));
        assertThat(lockkitMeters()).as("reports after close").isEmpty();
        metrics.close();
        assertThatThrownBy(() -> metrics.bindTo(registry))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    @DisplayName(
            "leadership terms: won, revoked by reason, time led, names led now; none of these meters before a term; close removes them")
    void leadershipTermsAreCountedAndTimed() throws Exception {
        LockMetrics metrics = LockMetrics.create();
        DistributedLockFactory locks = bound(metrics);
        assertThat(lockkitMeters()).as("meters before any leadership").doesNotContain(LockMetrics.LEADERSHIP_ELECTED);
        Leadership leadership = locks.leadership(
                "scheduler",
                LeadershipOptions.builder()
                        .lease(Duration.ofSeconds(3))
                        .rejoinDelay(Duration.ofSeconds(30))
                        .build());
        toClose.add(leadership);
        leadership.start().awaitTerm(Duration.ofSeconds(10)).orElseThrow();
        // The election is reported on the leadership's thread, just after the term begins.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> registry.find(LockMetrics.LEADERSHIP_ELECTED).counter() != null);
        assertThat(registry.get(LockMetrics.LEADERSHIP_ELECTED).counter().count())
                .isEqualTo(1.0);
        assertThat(gauge(LockMetrics.LEADERSHIP_LEADING)).isEqualTo(1.0);

        leadership.stepDown();
        assertThat(gauge(LockMetrics.LEADERSHIP_LEADING)).isZero();
        assertThat(registry.get(LockMetrics.LEADERSHIP_REVOKED)
                        .tag(LockMetrics.REASON_TAG, "stepped_down")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(registry.get(LockMetrics.LEADERSHIP_REVOKED)
                        .tag(LockMetrics.REASON_TAG, "lease_expired")
                        .counter()
                        .count())
                .isZero();
        Timer led = registry.get(LockMetrics.LEADERSHIP_LED).timer();
        assertThat(led.count()).isEqualTo(1);
        assertThat(led.totalTime(TimeUnit.NANOSECONDS)).isPositive();

        leadership.close();
        locks.close();
        metrics.close();
        assertThat(lockkitMeters()).as("after close").isEmpty();
    }

    private List<String> lockkitMeters() {
        return registry.getMeters().stream()
                .map(m -> m.getId().getName())
                .filter(n -> n.startsWith("lockkit."))
                .toList();
    }
}
