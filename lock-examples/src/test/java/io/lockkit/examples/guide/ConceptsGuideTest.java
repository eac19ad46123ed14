package io.lockkit.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The snippets of docs/concepts.md, compiled and run on the in-JVM provider (the API is the same
 * over every provider); each block between {@code // guide:<name>-begin} and {@code -end} is shown
 * on the page.
 */
@DisplayName("docs/concepts.md: the API as the guide shows it")
class ConceptsGuideTest {

    private static final Logger log = Logger.getLogger(ConceptsGuideTest.class.getName());

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

    /** Stands for the application's stock: a check-then-act that needs the lock. */
    static final class Stock {
        private int left = 10;

        int reserve(String sku, int quantity) {
            if (quantity > left) {
                throw new IllegalStateException("only " + left + " of " + sku + " left");
            }
            left -= quantity;
            return left;
        }
    }

    @Test
    @DisplayName("a thread-owned lock: tryLock with a wait, unlock in finally, reentrant")
    void threadOwnedLock() throws Exception {
        DistributedLockFactory locks = factory();
        Stock stock = new Stock();
        int left = -1;
        // guide:thread-lock-begin
        DistributedLock lock = locks.getLock("stock:tea");
        if (lock.tryLock(5, TimeUnit.SECONDS)) { // false: still busy after 5 s
            try {
                left = stock.reserve("tea", 2);
            } finally {
                lock.unlock();
            }
        }
        // guide:thread-lock-end
        assertThat(left).isEqualTo(8);
        lock.lock();
        lock.lock(); // reentrant
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    @DisplayName("acquireAsync: no thread waits; the work runs on the caller's executor once the lock is granted")
    void asynchronousAcquisition() throws Exception {
        DistributedLockFactory locks = factory();
        Stock stock = new Stock();
        java.util.concurrent.ExecutorService workers = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            LockHandle someoneElse = locks.acquire("stock:tea", LockOptions.noWait());
            // guide:async-begin
            CompletableFuture<Integer> reserved = locks.acquireAsync(
                            "stock:tea", LockOptions.waitAtMost(Duration.ofSeconds(5)))
                    .thenApplyAsync(
                            hold -> {
                                try (hold) {
                                    return stock.reserve("tea", 2);
                                }
                            },
                            workers) // blocking work: on your executor, not lockkit's
                    .toCompletableFuture();
            // guide:async-end
            assertThat(reserved).isNotDone();
            someoneElse.release();
            assertThat(reserved.get(10, TimeUnit.SECONDS)).isEqualTo(8);
            CompletableFuture<LockHandle> pending =
                    locks.acquireAsync("stock:tea").toCompletableFuture();
            pending.get(10, TimeUnit.SECONDS).release();
        } finally {
            workers.shutdownNow();
        }
    }

    @Test
    @DisplayName("callWithLock returns the work's result, runWithLock runs it; both release whatever happens")
    void callAndRunWithLock() throws Exception {
        DistributedLockFactory locks = factory();
        Stock stock = new Stock();
        AtomicInteger rebuilt = new AtomicInteger();
        Runnable rebuildCache = rebuilt::incrementAndGet;
        // guide:call-with-lock-begin
        int left = locks.callWithLock("stock:tea", LockOptions.waitAtMost(Duration.ofSeconds(5)), () -> {
            return stock.reserve("tea", 2);
        });
        locks.runWithLock("cache:rebuild", LockOptions.noWait(), rebuildCache); // busy: LockNotAcquiredException
        // guide:call-with-lock-end
        assertThat(left).isEqualTo(8);
        assertThat(rebuilt).hasValue(1);
        assertThatThrownBy(() -> locks.callWithLock("stock:tea", LockOptions.noWait(), () -> stock.reserve("tea", 9)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only 8");
        assertThat(locks.operations().inspect("stock:tea"))
                .as("released after the failure too")
                .isEmpty();

        DistributedLockFactory other = factory();
        try (LockHandle busy = other.acquire("cache:rebuild")) {
            assertThat(busy.isValid()).isTrue();
            assertThatThrownBy(() -> locks.runWithLock("cache:rebuild", LockOptions.noWait(), rebuildCache))
                    .isInstanceOf(LockNotAcquiredException.class);
        }
    }

    /** Stands for a long import in batches that writes with the fencing token. */
    static final class Importer {
        final List<Long> written = new CopyOnWriteArrayList<>();
        final AtomicBoolean cancelled = new AtomicBoolean();

        void write(String batch, long fencingToken) {
            written.add(fencingToken);
        }

        void cancel() {
            cancelled.set(true);
        }
    }

    @Test
    @DisplayName("a handle: its loss is reported, its validity checked between steps, its token passed on")
    void handleWithLoss() throws Exception {
        DistributedLockFactory locks = factory();
        Importer importer = new Importer();
        List<String> batches = List.of("a", "b", "c");
        // guide:handle-begin
        try (LockHandle hold = locks.acquire("import:catalog", LockOptions.waitAtMost(Duration.ofSeconds(10)))) {
            hold.lost().thenRun(importer::cancel); // called as soon as the hold is known to be lost
            for (String batch : batches) {
                if (!hold.isValid()) {
                    break; // lost, or the lease ran out while this thread was paused
                }
                importer.write(batch, hold.fencingToken()); // the target refuses older tokens
            }
        }
        // guide:handle-end
        assertThat(importer.written).hasSize(3).containsOnly(importer.written.get(0));
        assertThat(importer.cancelled).isFalse();

        LockHandle other = locks.acquire("import:catalog");
        other.lost().thenRun(importer::cancel);
        assertThat(locks.operations().forceRelease("import:catalog")).isTrue();
        await().atMost(Duration.ofSeconds(10)).untilTrue(importer.cancelled);
        assertThatThrownBy(other::release).isInstanceOf(LockLostException.class);
    }

    @Test
    @DisplayName("tryAcquire answers at once; an explicit lease is not renewed")
    void tryAcquireAndExplicitLease() throws Exception {
        DistributedLockFactory locks = factory();
        List<String> done = new ArrayList<>();
        // guide:try-acquire-begin
        Optional<LockHandle> maybe = locks.tryAcquire("report:daily"); // empty when busy: no wait, no exception
        if (maybe.isPresent()) {
            try (LockHandle hold = maybe.get()) {
                done.add("report " + hold.fencingToken());
            }
        }

        LockOptions fixedLease = LockOptions.builder()
                .waitAtMost(Duration.ofSeconds(2))
                .lease(Duration.ofSeconds(30)) // not renewed: the lock lapses 30 s after it was taken
                .build();
        try (LockHandle hold = locks.acquire("report:weekly", fixedLease)) {
            done.add("weekly " + hold.remainingLease().toSeconds() + " s left");
        }
        // guide:try-acquire-end
        assertThat(done).hasSize(2);
        assertThat(done.get(1)).matches("weekly (29|30) s left");
        DistributedLockFactory other = factory();
        try (LockHandle busy = other.acquire("report:daily")) {
            assertThat(busy.isValid()).isTrue();
            assertThat(locks.tryAcquire("report:daily")).isEmpty();
        }
    }

    private static boolean refusesNewWork(DistributedLockFactory locks) {
        try {
            locks.tryAcquire("probe").ifPresent(LockHandle::release);
            return false;
        } catch (LockException closing) {
            return true;
        }
    }

    @Test
    @DisplayName("a factory with its own defaults, a loss listener and a drain at shutdown")
    void factoryBuilder() throws Exception {
        LockProvider provider = backend.newClient();
        List<String> logged = new CopyOnWriteArrayList<>();
        // guide:factory-begin
        DistributedLockFactory locks = DistributedLockFactory.builder(provider)
                .defaultOptions(LockOptions.builder()
                        .waitAtMost(Duration.ofSeconds(30))
                        .watchdogLease(Duration.ofSeconds(10)) // renewed every 10/3 s; a dead holder frees it in 10 s
                        .build())
                .onLockLost(loss -> log.warning("lost " + loss.lockName() + ": " + loss.getMessage()))
                .build();
        // guide:factory-end
        log.addHandler(new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                logged.add(r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        });
        try {
            LockHandle hold = locks.acquire("orders:42");
            assertThat(hold.remainingLease()).isLessThanOrEqualTo(Duration.ofSeconds(10));
            locks.operations().forceRelease("orders:42");
            await().atMost(Duration.ofSeconds(10)).until(() -> !logged.isEmpty());
            assertThat(logged.get(0)).startsWith("lost orders:42: ");

            LockHandle running = locks.acquire("orders:43");
            CompletableFuture<Void> work = CompletableFuture.runAsync(() -> {
                // the holder finishes its work once the factory has started closing
                await().atMost(Duration.ofSeconds(10)).until(() -> refusesNewWork(locks));
                running.release();
            });
            // guide:drain-begin
            locks.close(Duration.ofSeconds(30)); // new acquisitions fail at once; holders get up to 30 s to finish
            // guide:drain-end
            work.get(10, TimeUnit.SECONDS);
            assertThat(running.isValid()).isFalse();
            assertThat(logged)
                    .as("a hold released by its owner within the drain is not lost")
                    .hasSize(1);
        } finally {
            for (java.util.logging.Handler h : log.getHandlers()) {
                log.removeHandler(h);
            }
            locks.close();
        }
    }
}
