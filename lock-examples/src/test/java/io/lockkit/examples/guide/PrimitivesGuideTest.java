package io.lockkit.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedReadWriteLock;
import io.lockkit.DistributedSemaphore;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The snippets of docs/primitives.md, compiled and run on the in-JVM provider (the API is the same
 * over every provider with shared holds); each block between {@code // guide:<name>-begin} and
 * {@code -end} is shown on the page.
 */
@DisplayName("docs/primitives.md: read/write locks, semaphores and fair locks as the guide shows them")
class PrimitivesGuideTest {

    private final LocalLockProvider backend = new LocalLockProvider();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private DistributedLockFactory factory() {
        DistributedLockFactory f = DistributedLockFactory.create(backend.newClient());
        toClose.add(f);
        return f;
    }

    /** Stands for configuration read on every request and reloaded now and then. */
    static final class Pricing {
        private final Map<String, Integer> prices = new ConcurrentHashMap<>(Map.of("tea", 4));
        int reloads;

        int price(String sku) {
            return prices.get(sku);
        }

        void reload() {
            reloads++;
            prices.put("tea", 5);
        }
    }

    /** Stands for a partner's API that allows three calls in flight. */
    static final class PartnerApi {
        int inFlight;
        int most;

        synchronized String call(String request) {
            inFlight++;
            most = Math.max(most, inFlight);
            inFlight--;
            return "ok:" + request;
        }
    }

    @Test
    @DisplayName("a read/write lock: readers share, a writer reloads alone, an upgrade is refused")
    void readWriteLock() throws Exception {
        DistributedLockFactory locks = factory();
        Pricing pricing = new Pricing();
        int price;
        // guide:read-write-begin
        DistributedReadWriteLock config = locks.getReadWriteLock("config:pricing");

        config.readLock().lock(); // any number of readers, in every instance
        try {
            price = pricing.price("tea");
        } finally {
            config.readLock().unlock();
        }

        config.writeLock().lock(); // alone: readers wait, new ones queue behind the writer
        try {
            pricing.reload();
        } finally {
            config.writeLock().unlock();
        }
        // guide:read-write-end
        assertThat(price).isEqualTo(4);
        assertThat(pricing.reloads).isEqualTo(1);

        DistributedReadWriteLock other = factory().getReadWriteLock("config:pricing");
        config.readLock().lock();
        try {
            assertThat(other.readLock().tryLock()).isTrue();
            other.readLock().unlock();
            assertThat(other.writeLock().tryLock()).isFalse();
            assertThatThrownBy(() -> config.writeLock().lock()).isInstanceOf(IllegalMonitorStateException.class);
        } finally {
            config.readLock().unlock();
        }
    }

    @Test
    @DisplayName("a downgrade: write, then read without letting a writer in between")
    void downgrade() throws Exception {
        DistributedLockFactory locks = factory();
        Pricing pricing = new Pricing();
        DistributedReadWriteLock config = locks.getReadWriteLock("config:pricing");
        int price;
        // guide:downgrade-begin
        config.writeLock().lock();
        try {
            pricing.reload();
            config.readLock().lock(); // beside the thread's own write lock
        } finally {
            config.writeLock().unlock(); // still reading: no writer got in between
        }
        try {
            price = pricing.price("tea");
        } finally {
            config.readLock().unlock();
        }
        // guide:downgrade-end
        assertThat(price).isEqualTo(5);
        assertThat(factory().getReadWriteLock("config:pricing").writeLock().tryLock())
                .isTrue();
    }

    @Test
    @DisplayName("a semaphore bounds calls in flight across instances; a hold is a handle with a token")
    void semaphore() throws Exception {
        DistributedLockFactory locks = factory();
        PartnerApi partner = new PartnerApi();
        String answer;
        // guide:semaphore-begin
        DistributedSemaphore partnerCalls = locks.getSemaphore("partner-api", 3); // 3 in flight, cluster-wide

        try (LockHandle permit = partnerCalls.acquire(1, LockOptions.waitAtMost(Duration.ofSeconds(2)))) {
            answer = partner.call("order-17"); // permit.fencingToken() numbers this call
        } // LockNotAcquiredException when no permit came free within 2 s
        // guide:semaphore-end
        assertThat(answer).isEqualTo("ok:order-17");
        List<LockHandle> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            all.add(factory().getSemaphore("partner-api", 3).acquire(1, LockOptions.noWait()));
        }
        assertThat(partnerCalls.availablePermits()).isZero();
        assertThatThrownBy(() -> partnerCalls.acquire(1, LockOptions.noWait()))
                .isInstanceOf(LockNotAcquiredException.class);
        all.forEach(LockHandle::release);
        assertThat(partnerCalls.availablePermits()).isEqualTo(3);
    }

    @Test
    @DisplayName("an operator changes a semaphore's capacity for every instance")
    void capacity() throws Exception {
        DistributedLockFactory locks = factory();
        DistributedSemaphore partnerCalls = locks.getSemaphore("partner-api", 3);
        LockHandle held = partnerCalls.acquire(1, LockOptions.noWait());
        // guide:capacity-begin
        locks.operations().setCapacity("partner-api", 5); // or: lockkit capacity partner-api 5
        // guide:capacity-end
        assertThat(partnerCalls.availablePermits()).isEqualTo(4);
        held.release();
    }

    @Test
    @DisplayName("a fair lock serves waiters in arrival order")
    void fairLock() throws Exception {
        DistributedLockFactory locks = factory();
        List<String> ran = new ArrayList<>();
        // guide:fair-lock-begin
        DistributedLock ledger = locks.getFairLock("jobs:ledger"); // first come, first served

        if (ledger.tryLock(30, TimeUnit.SECONDS)) {
            try {
                ran.add("post batch 41");
            } finally {
                ledger.unlock();
            }
        }
        // guide:fair-lock-end
        assertThat(ran).containsExactly("post batch 41");
    }
}
