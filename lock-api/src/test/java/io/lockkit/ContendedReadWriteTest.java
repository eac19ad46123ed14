package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Readers and writers of two clients hammering one name through the core and the in-JVM provider
 * keep making progress: a release that wakes the shared waiters of a room must also wake its first
 * exclusive waiter, whose queue entry keeps those readers out (before, every thread stalled within
 * the first second, each asleep until its retry hint, the holder's lease).
 */
class ContendedReadWriteTest {

    private final LocalLockProvider table = new LocalLockProvider();
    private final List<DistributedLockFactory> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(DistributedLockFactory::close);
    }

    @Test
    @DisplayName("readers and writers of two clients hammering one name keep making progress")
    void contendedReadersAndWritersKeepMakingProgress() throws Exception {
        String name = "contended";
        AtomicInteger done = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                DistributedLockFactory client = DistributedLockFactory.builder(table.newClient())
                        .defaultOptions(LockOptions.builder()
                                .watchdogLease(Duration.ofSeconds(60))
                                .build())
                        .build();
                clients.add(client);
                DistributedReadWriteLock rw = client.getReadWriteLock(name);
                for (int t = 0; t < 4; t++) {
                    int thread = t;
                    all.add(threads.submit(() -> {
                        for (int i = 0; i < 200; i++) {
                            DistributedLock l = (i + thread) % 10 == 0 ? rw.writeLock() : rw.readLock();
                            // A lost wake-up leaves a waiter asleep until the holder's 60 s lease.
                            if (!l.tryLock(Duration.ofSeconds(20), null)) {
                                throw new AssertionError("a waiter waited 20 s after " + done.get() + " acquisitions");
                            }
                            l.unlock();
                            done.incrementAndGet();
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : all) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(done.get()).isEqualTo(1_600);
    }
}
