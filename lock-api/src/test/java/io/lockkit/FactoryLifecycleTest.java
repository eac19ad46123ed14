package io.lockkit;

import static io.lockkit.CoreTestSupport.lease;
import static io.lockkit.CoreTestSupport.parked;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The factory's own threads, its close (waiters leave the backend before the provider closes, the
 * loss listener hears of every hold close released, the watchdog forgets them, the provider is
 * closed), acquisitions that race close, and what a thread's or a handle's hold looks like after
 * a loss, a close or a deferred release. A fake clock and a scheduler the test drives, except
 * where the factory's own threads are the subject.
 */
class FactoryLifecycleTest {

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final List<LockLostException> losses = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        threads.forEach(Thread::interrupt);
        for (AutoCloseable c : closeables) {
            c.close();
        }
        for (Thread t : threads) {
            t.join(5_000);
        }
    }

    private ProviderLockFactory factory(LockProvider provider) {
        ProviderLockFactory f = (ProviderLockFactory) DistributedLockFactory.builder(provider)
                .ticker(ticker)
                .scheduler(scheduler)
                .onLockLost(losses::add)
                .subscriptionLinger(Duration.ZERO)
                .build();
        closeables.add(f);
        return f;
    }

    private Thread start(Runnable body) {
        return CoreTestSupport.startDaemon(threads, "factory-lifecycle-test", body);
    }

    @Test
    void theFactorysOwnSchedulerThreadsAreDaemonsMadeOnFirstUse() throws Exception {
        DistributedLockFactory locks = DistributedLockFactory.create(new LocalLockProvider());
        closeables.add(locks);
        LockHandle h = locks.acquire("life:daemon", LockOptions.noWait()); // schedules the watchdog's tick
        List<Thread> schedulerThreads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("lockkit-scheduler-"))
                .filter(Thread::isAlive)
                .toList();
        assertThat(schedulerThreads).isNotEmpty().allMatch(Thread::isDaemon);
        h.release();
    }

    @Test
    void aGivenThreadFactoryMakesBothSchedulerThreadsAtBuild() {
        AtomicInteger made = new AtomicInteger();
        ThreadFactory tf = r -> {
            made.incrementAndGet();
            Thread t = new Thread(r, "life-managed");
            t.setDaemon(true);
            return t;
        };
        DistributedLockFactory locks = DistributedLockFactory.builder(new LocalLockProvider())
                .threadFactory(tf)
                .build();
        closeables.add(locks);
        assertThat(made.get()).as("threads made before any use").isEqualTo(2);
    }

    @Test
    void closeLetsWokenWaitersLeaveTheBackendBeforeItClosesTheProvider() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        LockProvider slowToAbandon = new ForwardingLockProvider(backend.newClient()) {
            @Override
            public void abandon(String name, String owner, long waitId) {
                // A backend round trip: the woken waiter is still leaving when close would go on.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                events.add("abandon");
                super.abandon(name, owner, waitId);
            }

            @Override
            public void close() {
                events.add("close");
                super.close();
            }
        };
        factory(backend).acquire("life:leave", lease(Duration.ofHours(1)));
        ProviderLockFactory locks = factory(slowToAbandon);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = start(() -> {
            try {
                locks.getLock("life:leave").lock();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && locks.liveSubscriptions() == 1);
        locks.close();
        assertThat(events).containsExactly("abandon", "close");
        assertThat(outcome.get(2, TimeUnit.SECONDS))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed while waiting");
    }

    @Test
    void closeReleasesEveryHoldTellsTheListenerForgetsThemAndClosesTheProvider() throws Exception {
        LocalLockProvider client = backend.newClient();
        ProviderLockFactory locks = factory(client);
        LockHandle handle = locks.acquire("life:handle", LockOptions.noWait());
        handle.acquireAgain();
        DistributedLock lock = locks.getLock("life:thread");
        lock.lock();
        assertThat(locks.watchedHolds()).isEqualTo(2);

        locks.close();
        assertThat(losses)
                .extracting(LockLostException::lockName)
                .containsExactlyInAnyOrder("life:handle", "life:thread");
        assertThat(losses).allSatisfy(l -> assertThat(l).hasMessageContaining("released when the lock factory closed"));
        assertThat(backend.inspect("life:handle")).as("both counts released").isEmpty();
        assertThat(backend.inspect("life:thread")).isEmpty();
        assertThat(locks.watchedHolds()).isZero();
        assertThat(scheduler.pending()).as("nothing left scheduled").isZero();
        assertThatThrownBy(() -> client.inspect("life:handle"))
                .as("the provider is closed")
                .isInstanceOf(LockException.class);

        // A thread's unlock after close hears of it once, then the hold is gone for the thread.
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class).hasMessageContaining("closed");
        assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(handle::close).isInstanceOf(LockLostException.class);
        locks.close(); // idempotent
        assertThat(losses).hasSize(2);
    }

    @Test
    void aProviderFailureWhileTheFactoryClosesIsReportedAsTheClose() {
        AtomicInteger attempts = new AtomicInteger();
        ProviderLockFactory[] self = new ProviderLockFactory[1];
        RuntimeException refused = new IllegalStateException("provider closed");
        self[0] = factory(new ForwardingLockProvider(backend.newClient()) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                attempts.incrementAndGet();
                self[0].close();
                throw refused;
            }
        });
        assertThatThrownBy(() -> self[0].tryAcquire("life:racing"))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed while acquiring")
                .hasCause(refused);
        assertThat(attempts.get()).isEqualTo(1);
    }

    @Test
    void aProviderFailureOfAnOpenFactoryPassesThrough() {
        RuntimeException refused = new BackendUnavailableException("life:down", "down for the test", null);
        ProviderLockFactory locks = factory(new ForwardingLockProvider(backend.newClient()) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                throw refused;
            }
        });
        assertThatThrownBy(() -> locks.tryAcquire("life:down")).isSameAs(refused);
    }

    @Test
    void aLockGrantedWhileTheFactoryClosesIsGivenBackAndRefused() {
        ProviderLockFactory[] self = new ProviderLockFactory[1];
        self[0] = factory(new ForwardingLockProvider(backend.newClient()) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                Acquisition a = super.tryAcquire(request);
                self[0].close();
                return a;
            }

            @Override
            public void close() {
                // keep the client open, so the release that gives the lock back reaches the backend
            }
        });
        assertThatThrownBy(() -> self[0].tryAcquire("life:granted"))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed while acquiring");
        assertThat(backend.inspect("life:granted")).as("given back").isEmpty();
    }

    @Test
    void aThreadsReentrantTryLockSaysItHasTheLock() throws Exception {
        ProviderLockFactory locks = factory(backend);
        DistributedLock lock = locks.getLock("life:reentrant");
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(locks.watchedHolds()).isEqualTo(1);
    }

    @Test
    void aThreadWhoseOnlyCountTheBackendLostHearsOnceAndThenHoldsNothing() {
        ProviderLockFactory locks = factory(backend);
        DistributedLock lock = locks.getLock("life:lost-once");
        lock.lock();
        backend.newClient().forceRelease("life:lost-once");
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aDeferredReleaseForgetsTheHoldAtOnceAndReportsNoLossWhenTheLeaseRunsOut() throws Exception {
        ProviderLockFactory locks = factory(backend);
        LockHandle h = locks.acquire("life:later", LockOptions.noWait());
        h.releaseAfter(Duration.ofSeconds(5));
        assertThat(locks.watchedHolds()).isZero();
        assertThat(h.holdCount()).isZero();
        assertThat(backend.inspect("life:later")).map(s -> s.remainingLease()).contains(Duration.ofSeconds(5));
        scheduler.advance(Duration.ofSeconds(40));
        assertThat(losses).isEmpty();
        assertThat(h.lost()).isNotDone();
        assertThatThrownBy(h::release)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already released");
        h.close(); // nothing left to do
    }

    @Test
    void aWaitThatRunsOutGivesItsPlaceBackAndTellsTheBackendHowLongItWillWait() throws Exception {
        List<LockRequest> requests = new CopyOnWriteArrayList<>();
        AtomicInteger abandons = new AtomicInteger();
        java.util.Map<String, LockProvider.WakeUpListener> rooms = new java.util.concurrent.ConcurrentHashMap<>();
        ProviderLockFactory locks = factory(new ForwardingLockProvider(backend.newClient()) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                requests.add(request);
                return super.tryAcquire(request);
            }

            @Override
            public void abandon(String name, String owner, long waitId) {
                abandons.incrementAndGet();
            }

            @Override
            public Subscription subscribe(String name, WakeUpListener listener) {
                rooms.put(name, listener);
                return super.subscribe(name, listener);
            }
        });
        factory(backend).acquire("life:timed", lease(Duration.ofHours(1)));
        CompletableFuture<Boolean> outcome = new CompletableFuture<>();
        Thread waiter = start(() -> {
            try {
                outcome.complete(locks.getLock("life:timed").tryLock(3, TimeUnit.SECONDS));
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(waiter) && rooms.containsKey("life:timed"));
        assertThat(requests.get(0).maxWait())
                .as("the whole wait, on the factory's clock")
                .isEqualTo(Duration.ofSeconds(3));
        assertThat(requests.get(0).waitId()).isPositive();
        ticker.advance(Duration.ofSeconds(1));
        rooms.get("life:timed").missedNotifications();
        await().atMost(Duration.ofSeconds(5)).until(() -> requests.size() >= 3);
        assertThat(requests.get(2).maxWait()).as("what is left of it").isEqualTo(Duration.ofSeconds(2));
        ticker.advance(Duration.ofSeconds(2));
        rooms.get("life:timed").missedNotifications();
        assertThat(outcome.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(abandons.get()).isEqualTo(1);
        // The look at the deadline asks not to wait: the backend must not queue a wait that is over.
        assertThat(requests.get(requests.size() - 1).maxWait()).isEqualTo(Duration.ZERO);

        // A wait without a limit asks for the longest wait there is.
        Thread forever = start(() -> locks.getLock("life:timed").lock());
        await().atMost(Duration.ofSeconds(5)).until(() -> parked(forever) && requests.size() >= 5);
        assertThat(requests.get(requests.size() - 1).maxWait()).isEqualTo(LockOptions.MAX_DURATION);
    }
}
