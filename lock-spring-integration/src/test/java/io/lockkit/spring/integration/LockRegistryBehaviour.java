package io.lockkit.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockLostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.integration.aggregator.AggregatingMessageHandler;
import org.springframework.integration.aggregator.DefaultAggregatingMessageGroupProcessor;
import org.springframework.integration.channel.QueueChannel;
import org.springframework.integration.context.IntegrationContextUtils;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.store.SimpleMessageStore;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.messaging.Message;

/**
 * What Spring Integration's users rely on from a {@link LockkitLockRegistry}, on a real backend.
 * Each registry has its own factory, provider and connections: it plays one process.
 */
abstract class LockRegistryBehaviour {

    private final List<DistributedLockFactory> factories = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final String key = "key-" + UUID.randomUUID();

    /** A new factory with a provider and connections of its own: another process. */
    abstract DistributedLockFactory newFactory();

    LockkitLockRegistry newRegistry() {
        DistributedLockFactory factory = newFactory();
        factories.add(factory);
        return new LockkitLockRegistry(factory, "si-test:");
    }

    @AfterEach
    void closeAll() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        factories.forEach(DistributedLockFactory::close);
    }

    @Test
    @DisplayName("threads of three registries locking one key through obtain() lose no update of a shared counter")
    void concurrentRegistriesLoseNoUpdate() throws Exception {
        int perThread = 15;
        int[] counter = {0}; // read and written without synchronization: only the lock orders them
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        for (int r = 0; r < 3; r++) {
            LockkitLockRegistry registry = newRegistry();
            for (int t = 0; t < 2; t++) {
                workers.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        Lock lock = registry.obtain(key); // obtained per use, as aggregators do
                        lock.lock();
                        try {
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            int read = counter[0];
                            Thread.yield(); // widens the window a missing lock would leave open
                            counter[0] = read + 1;
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
        }
        start.countDown();
        for (Future<?> w : workers) {
            w.get(120, TimeUnit.SECONDS);
        }
        assertThat(counter[0])
                .as("Future.get orders the workers' writes before this read")
                .isEqualTo(3 * 2 * perThread);
        assertThat(overlaps).hasValue(0);
    }

    @Test
    @DisplayName("tryLock(time) gives up after about its time while another registry holds the key, and returns false")
    void tryLockTimesOut() throws Exception {
        LockkitLockRegistry holder = newRegistry();
        LockkitLockRegistry waiter = newRegistry();
        CountDownLatch release = new CountDownLatch(1);
        Future<?> held = holdOnAnotherThread(holder, release);
        long start = System.nanoTime();
        boolean taken = waiter.obtain(key).tryLock(400, TimeUnit.MILLISECONDS);
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(taken).isFalse();
        assertThat(waitedMillis).as("waited the whole time").isGreaterThanOrEqualTo(390);
        assertThat(waitedMillis).as("returned, not hung").isLessThan(30_000);
        release.countDown();
        held.get(30, TimeUnit.SECONDS);
        assertThat(waiter.obtain(key).tryLock(30, TimeUnit.SECONDS)).isTrue();
        waiter.obtain(key).unlock();
    }

    @Test
    @DisplayName(
            "unlock() by a thread that does not hold the lock throws IllegalMonitorStateException and frees nothing")
    void unlockByAnotherThreadFails() throws Exception {
        LockkitLockRegistry registry = newRegistry();
        CountDownLatch release = new CountDownLatch(1);
        Future<?> held = holdOnAnotherThread(registry, release);
        assertThatThrownBy(() -> registry.obtain(key).unlock()).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(newRegistry().obtain(key).tryLock()).as("still held").isFalse();
        release.countDown();
        held.get(30, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("the holding thread locks again (one token, hold count 2) and the key is free only after two unlocks")
    void reentrantWithOneToken() throws Exception {
        LockkitLockRegistry registry = newRegistry();
        LockkitLock first = registry.obtain(key);
        first.lock();
        long token = first.fencingToken();
        LockkitLock second = registry.obtain(key);
        assertThat(second.tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(second.getHoldCount()).isEqualTo(2);
        assertThat(second.fencingToken()).isEqualTo(token);
        second.unlock();
        LockkitLock elsewhere = newRegistry().obtain(key);
        assertThat(onOtherThread(() -> elsewhere.tryLock()))
                .as("still held once")
                .isFalse();
        first.unlock();
        LockkitLock next = newRegistry().obtain(key);
        assertThat(onOtherThread(() -> {
                    boolean taken = next.tryLock(10, TimeUnit.SECONDS);
                    long nextToken = next.fencingToken();
                    next.unlock();
                    return taken && nextToken > token;
                }))
                .as("free, with a greater token")
                .isTrue();
    }

    @Test
    @DisplayName(
            "a ttl hold that lapses and is taken by another registry is reported: unlock() throws ConcurrentModificationException caused by LockLostException")
    void lapsedTtlIsReportedAtUnlock() {
        LockkitLock lock = newRegistry().obtain(key);
        LockkitLock other = newRegistry().obtain(key);
        lock.lock(Duration.ofMillis(300));
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        // The backend's own expiry, not the client's deadline: another registry gets the key.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> onOtherThread(() -> {
                    if (!other.tryLock()) {
                        return false;
                    }
                    other.unlock();
                    return true;
                }));
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasCauseInstanceOf(LockLostException.class);
        assertThatThrownBy(lock::unlock)
                .as("the hold is gone after the report")
                .isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    @DisplayName(
            "renewLock(key, ttl) keeps a ttl hold past its first ttl; renewLock on a key the thread does not hold throws")
    void renewLockLengthensTheLease() throws Exception {
        LockkitLockRegistry registry = newRegistry();
        LockkitLock lock = registry.obtain(key);
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(500))).isTrue();
        registry.renewLock(key, Duration.ofSeconds(30));
        assertThat(lock.getHoldCount()).isOne();
        Thread.sleep(900); // past the first ttl: the backend's own expiry is what is being checked
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        LockkitLock elsewhere = newRegistry().obtain(key);
        assertThat(onOtherThread(() -> elsewhere.tryLock())).isFalse();
        lock.unlock();
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    @DisplayName(
            "LockRegistryLeaderInitiator over two registries elects one leader, and the other takes over when its initiator stops")
    void leaderInitiatorElectsOneAndHandsOver() throws Exception {
        String role = "role-" + UUID.randomUUID();
        RecordingCandidate a = new RecordingCandidate("a", role);
        RecordingCandidate b = new RecordingCandidate("b", role);
        LockRegistryLeaderInitiator initiatorA = new LockRegistryLeaderInitiator(newRegistry(), a);
        LockRegistryLeaderInitiator initiatorB = new LockRegistryLeaderInitiator(newRegistry(), b);
        initiatorA.start();
        initiatorB.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> a.leading || b.leading);
            // Several heartbeats (500 ms each) later, still exactly one.
            for (int i = 0; i < 6; i++) {
                assertThat(a.leading && b.leading).as("two leaders at once").isFalse();
                assertThat(a.leading || b.leading).as("no leader").isTrue();
                Thread.sleep(250);
            }
            RecordingCandidate leader = a.leading ? a : b;
            RecordingCandidate other = leader == a ? b : a;
            assertThat(other.granted).hasValue(0);
            (leader == a ? initiatorA : initiatorB).stop();
            await().atMost(Duration.ofSeconds(30)).until(() -> other.leading);
            assertThat(leader.revoked).hasValue(1);
            assertThat(leader.leading).isFalse();
            assertThat(other.granted).hasValue(1);
        } finally {
            initiatorA.stop();
            initiatorB.stop();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> !a.leading && !b.leading);
    }

    @Test
    @DisplayName(
            "AggregatingMessageHandler runs on the registry unchanged: two of them sharing a store, parts sent from four threads, every group released once and whole")
    void aggregatorsReleaseEachGroupOnce() throws Exception {
        // Runs Spring's aggregator on the registry (its lock keys, lockInterruptibly, unlock). The in-memory store
        // serializes its own calls, so exclusion across processes is what concurrentRegistriesLoseNoUpdate shows.
        SimpleMessageStore store = new SimpleMessageStore(); // stands for a store the processes share
        QueueChannel released = new QueueChannel();
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory(); // what an application context has
        beans.registerSingleton(
                IntegrationContextUtils.INTEGRATION_EVALUATION_CONTEXT_BEAN_NAME, new StandardEvaluationContext());
        List<AggregatingMessageHandler> aggregators = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            AggregatingMessageHandler aggregator =
                    new AggregatingMessageHandler(new DefaultAggregatingMessageGroupProcessor(), store);
            aggregator.setLockRegistry(newRegistry());
            aggregator.setOutputChannel(released);
            aggregator.setBeanFactory(beans);
            aggregator.afterPropertiesSet();
            aggregators.add(aggregator);
        }
        int groups = 10;
        int size = 4;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> senders = new ArrayList<>();
        for (int part = 0; part < size; part++) {
            int sequence = part + 1;
            senders.add(threads.submit(() -> {
                start.await();
                for (int g = 0; g < groups; g++) {
                    // the parts of one group arrive at both aggregators at once
                    aggregators
                            .get((g + sequence) % 2)
                            .handleMessage(MessageBuilder.withPayload(sequence)
                                    .setCorrelationId(key + "-" + g)
                                    .setSequenceNumber(sequence)
                                    .setSequenceSize(size)
                                    .build());
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> s : senders) {
            s.get(120, TimeUnit.SECONDS);
        }
        List<Object> payloads = new ArrayList<>();
        for (Message<?> m = released.receive(0); m != null; m = released.receive(0)) {
            payloads.add(m.getPayload());
        }
        assertThat(payloads).hasSize(groups);
        assertThat(payloads).allSatisfy(p -> {
            List<?> parts = (List<?>) p; // in arrival order
            assertThat(parts).hasSize(size);
            assertThat(new java.util.HashSet<Object>(parts)).isEqualTo(java.util.Set.of(1, 2, 3, 4));
        });
    }

    private Future<?> holdOnAnotherThread(LockkitLockRegistry registry, CountDownLatch release) throws Exception {
        CountDownLatch locked = new CountDownLatch(1);
        Future<?> held = threads.submit(() -> {
            Lock lock = registry.obtain(key);
            lock.lock();
            try {
                locked.countDown();
                release.await();
            } finally {
                lock.unlock();
            }
            return null;
        });
        assertThat(locked.await(30, TimeUnit.SECONDS))
                .as("the other thread locked")
                .isTrue();
        return held;
    }

    private boolean onOtherThread(java.util.concurrent.Callable<Boolean> call) throws Exception {
        return CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return call.call();
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        threads)
                .get(30, TimeUnit.SECONDS);
    }

    /** A candidate that records what the initiator tells it. */
    static final class RecordingCandidate extends DefaultCandidate {
        volatile boolean leading;
        final AtomicInteger granted = new AtomicInteger();
        final AtomicInteger revoked = new AtomicInteger();

        RecordingCandidate(String id, String role) {
            super(id, role);
        }

        @Override
        public void onGranted(Context ctx) {
            granted.incrementAndGet();
            leading = true;
        }

        @Override
        public void onRevoked(Context ctx) {
            leading = false;
            revoked.incrementAndGet();
        }
    }
}
