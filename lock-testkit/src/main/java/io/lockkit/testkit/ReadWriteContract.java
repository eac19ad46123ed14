package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedReadWriteLock;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Read/write lock" ({@link LockContractTest.ReadWrite}): readers share across clients, a writer
 * excludes everyone, writers are preferred, a downgrade keeps the name, an upgrade is refused at
 * once, a writer's release wakes every waiting reader, contended readers and writers keep making
 * progress (no wake-up is lost), and tokens grow across modes. Skipped,
 * visibly, unless the provider declares {@link Capability#SHARED_HOLDS}; one test checks that a
 * provider without it refuses the read lock by name.
 */
abstract class ReadWriteContract extends ContractGroup {

    ReadWriteContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("readers of several clients hold the name at once; a writer gets it after the last one")
    void readersShareAcrossClients() {
        assume(Capability.SHARED_HOLDS);
        String name = name();
        DistributedReadWriteLock a = steadyClient().getReadWriteLock(name);
        DistributedReadWriteLock b = steadyClient().getReadWriteLock(name);
        DistributedReadWriteLock w = steadyClient().getReadWriteLock(name);

        assertThat(a.readLock().tryLock()).isTrue();
        assertThat(b.readLock().tryLock()).as("a second client's reader").isTrue();
        assertThat(w.writeLock().tryLock()).as("a writer while two read").isFalse();
        a.readLock().unlock();
        assertThat(w.writeLock().tryLock()).as("a writer while one reads").isFalse();
        b.readLock().unlock();
        assertThat(w.writeLock().tryLock()).isTrue();
        w.writeLock().unlock();
    }

    @Test
    @DisplayName("a writer excludes readers and writers of every client, and its plain lock is the same hold")
    void aWriterExcludesEveryone() {
        assume(Capability.SHARED_HOLDS);
        String name = name();
        DistributedLockFactory other = steadyClient();
        DistributedReadWriteLock mine = steadyClient().getReadWriteLock(name);
        mine.writeLock().lock();
        try {
            assertThat(other.getReadWriteLock(name).readLock().tryLock()).isFalse();
            assertThat(other.getReadWriteLock(name).writeLock().tryLock()).isFalse();
            assertThat(other.getLock(name).tryLock())
                    .as("the plain lock of the name")
                    .isFalse();
        } finally {
            mine.writeLock().unlock();
        }
        assertThat(other.getLock(name).tryLock()).isTrue();
        try {
            assertThat(mine.readLock().tryLock())
                    .as("a reader while the plain lock is held")
                    .isFalse();
        } finally {
            other.getLock(name).unlock();
        }
    }

    @Test
    @DisplayName("each mode is reentrant, with its own hold count")
    void eachModeIsReentrant() {
        assume(Capability.SHARED_HOLDS);
        DistributedReadWriteLock rw = steadyClient().getReadWriteLock(name());
        rw.readLock().lock();
        rw.readLock().lock();
        assertThat(rw.readLock().getHoldCount()).isEqualTo(2);
        assertThat(rw.writeLock().getHoldCount()).isZero();
        rw.readLock().unlock();
        assertThat(rw.readLock().isHeldByCurrentThread()).isTrue();
        rw.readLock().unlock();
        assertThat(rw.readLock().isHeldByCurrentThread()).isFalse();

        rw.writeLock().lock();
        rw.writeLock().lock();
        assertThat(rw.writeLock().getHoldCount()).isEqualTo(2);
        rw.writeLock().unlock();
        rw.writeLock().unlock();
        assertThat(rw.writeLock().isHeldByCurrentThread()).isFalse();
    }

    @Test
    @DisplayName("a writer downgrades by taking the read lock and unlocking the write lock; no writer gets in between")
    void aWriterDowngrades() {
        assume(Capability.SHARED_HOLDS);
        String name = name();
        DistributedReadWriteLock rw = steadyClient().getReadWriteLock(name);
        DistributedReadWriteLock other = steadyClient().getReadWriteLock(name);
        rw.writeLock().lock();
        assertThat(rw.readLock().tryLock())
                .as("the read lock beside the thread's own write lock")
                .isTrue();
        rw.writeLock().unlock();

        assertThat(other.writeLock().tryLock())
                .as("a writer after the downgrade")
                .isFalse();
        assertThat(other.readLock().tryLock())
                .as("another reader after the downgrade")
                .isTrue();
        other.readLock().unlock();
        rw.readLock().unlock();
        assertThat(other.writeLock().tryLock()).isTrue();
        other.writeLock().unlock();
    }

    @Test
    @DisplayName(
            "an upgrade from read to write is refused at once with IllegalMonitorStateException, leaving the read hold")
    void anUpgradeIsRefusedAtOnce() throws Exception {
        assume(Capability.SHARED_HOLDS);
        String name = name();
        DistributedReadWriteLock rw = steadyClient().getReadWriteLock(name);
        rw.readLock().lock();
        try {
            assertThatThrownBy(() -> returnsWithin(Duration.ofSeconds(10), () -> {
                        rw.readLock().lock(); // the kit thread reads too, then asks to write
                        try {
                            return rw.writeLock().tryLock(1, TimeUnit.HOURS);
                        } finally {
                            rw.readLock().unlock();
                        }
                    }))
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("upgrade");
            assertThatThrownBy(() -> rw.writeLock().tryLock()).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(rw.readLock().isHeldByCurrentThread()).isTrue();
            assertThat(steadyClient().getReadWriteLock(name).readLock().tryLock())
                    .as("another reader: the refused upgrade left nothing queued")
                    .isTrue();
        } finally {
            rw.readLock().unlock();
        }
    }

    @Test
    @DisplayName("a waiting writer keeps new readers out, and gets the name when the readers before it leave")
    void aWaitingWriterIsNotStarved() throws Exception {
        assume(Capability.SHARED_HOLDS);
        String name = name();
        DistributedReadWriteLock reader = steadyClient().getReadWriteLock(name);
        DistributedReadWriteLock newcomer = steadyClient().getReadWriteLock(name);
        WaitWatch watch = new WaitWatch(provider());
        DistributedLock writer = clientOver(watch).getReadWriteLock(name).writeLock();
        reader.readLock().lock();
        CompletableFuture<Boolean> wrote = new CompletableFuture<>();
        start("writer", () -> {
            try {
                wrote.complete(writer.tryLock(scaled(Duration.ofSeconds(60)), null));
                writer.unlock();
            } catch (Throwable e) {
                wrote.completeExceptionally(e);
            }
        });
        await("the writer queued").atMost(scaled(Duration.ofSeconds(20))).until(watch::queued);

        assertThat(newcomer.readLock().tryLock())
                .as("a new reader behind a waiting writer")
                .isFalse();
        reader.readLock().unlock();
        assertThat(wrote.get(scaled(Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS))
                .as("the writer, woken by the last reader's release")
                .isTrue();
    }

    @Test
    @DisplayName("a writer that stops waiting lets the readers it held back in at once")
    void aWriterThatGivesUpLetsReadersIn() throws Exception {
        assume(Capability.SHARED_HOLDS);
        String name = name();
        DistributedReadWriteLock reader = steadyClient().getReadWriteLock(name);
        reader.readLock().lock();
        WaitWatch writerWatch = new WaitWatch(provider());
        DistributedLock writer = clientOver(writerWatch).getReadWriteLock(name).writeLock();
        CompletableFuture<Boolean> wrote = new CompletableFuture<>();
        start("writer", () -> {
            try {
                wrote.complete(writer.tryLock(scaled(Duration.ofSeconds(3)), null));
            } catch (Throwable e) {
                wrote.completeExceptionally(e);
            }
        });
        await("the writer queued").atMost(scaled(Duration.ofSeconds(20))).until(writerWatch::queued);
        WaitWatch readerWatch = new WaitWatch(provider());
        DistributedLock newcomer =
                clientOver(readerWatch).getReadWriteLock(name).readLock();
        CompletableFuture<Long> readAfter = new CompletableFuture<>();
        start("newcomer", () -> {
            try {
                if (newcomer.tryLock(scaled(Duration.ofSeconds(60)), null)) {
                    readAfter.complete(System.nanoTime());
                    newcomer.unlock();
                }
            } catch (Throwable e) {
                readAfter.completeExceptionally(e);
            }
        });
        await("the new reader held back").atMost(scaled(Duration.ofSeconds(20))).until(readerWatch::queued);

        assertThat(wrote.get(scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS))
                .as("the writer's wait ran out while the reader held")
                .isFalse();
        readAfter.get(scaled(Duration.ofSeconds(15)).toMillis(), TimeUnit.MILLISECONDS); // the holder's lease is 60 s
        reader.readLock().unlock();
    }

    @Test
    @DisplayName("a writer's release wakes every waiting reader, and they read at once")
    void aWritersReleaseWakesEveryReader() throws Exception {
        assume(Capability.SHARED_HOLDS);
        String name = name();
        DistributedReadWriteLock writer = steadyClient().getReadWriteLock(name);
        writer.writeLock().lock();
        WaitWatch two = new WaitWatch(provider());
        WaitWatch one = new WaitWatch(provider());
        DistributedLockFactory twoReaders = clientOver(two);
        DistributedLockFactory oneReader = clientOver(one);
        CountDownLatch reading = new CountDownLatch(3);
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch left = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            DistributedLock read =
                    (i < 2 ? twoReaders : oneReader).getReadWriteLock(name).readLock();
            start("reader-" + i, () -> {
                try {
                    if (read.tryLock(scaled(Duration.ofSeconds(60)), null)) {
                        reading.countDown();
                        done.await();
                        read.unlock();
                        left.countDown();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        await("three readers waiting")
                .atMost(scaled(Duration.ofSeconds(20)))
                .until(() -> two.waiters() == 2 && one.waiters() == 1);
        writer.writeLock().unlock();
        try {
            assertThat(reading.await(scaled(Duration.ofSeconds(15)).toMillis(), TimeUnit.MILLISECONDS))
                    .as("three readers holding at once, woken by the release")
                    .isTrue();
        } finally {
            done.countDown();
        }
        // The readers unlock before the test ends and its clients close.
        assertThat(left.await(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS))
                .as("the readers unlocked")
                .isTrue();
    }

    @Test
    @DisplayName(
            "holds by handle: readers share, a writer waits for them, an asynchronous reader is woken by its release")
    void handleHolds() throws Exception {
        assume(Capability.SHARED_HOLDS);
        String name = name();
        DistributedReadWriteLock a = steadyClient().getReadWriteLock(name);
        DistributedReadWriteLock b = steadyClient().getReadWriteLock(name);
        LockHandle r1 = a.acquireRead(LockOptions.noWait());
        LockHandle r2 = b.acquireRead(LockOptions.noWait());
        assertThat(b.tryAcquireWrite(LockOptions.noWait()))
                .as("a writer while two read")
                .isEmpty();
        r1.release();
        r2.release();
        LockHandle w = a.acquireWrite(LockOptions.noWait());
        CompletableFuture<LockHandle> r3 =
                b.acquireReadAsync(waitFor(Duration.ofSeconds(60))).toCompletableFuture();
        assertThat(b.tryAcquireRead(LockOptions.noWait()))
                .as("a reader while a writer holds")
                .isEmpty();
        assertThat(r3).as("an asynchronous reader while a writer holds").isNotDone();
        w.release();
        LockHandle read = r3.get(scaled(Duration.ofSeconds(15)).toMillis(), TimeUnit.MILLISECONDS);
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(read.fencingToken()).isGreaterThan(w.fencingToken());
        }
        read.release();
    }

    @Test
    @DisplayName("readers and writers of two clients contending for one name keep making progress")
    void contendedReadersAndWritersKeepMakingProgress() throws Exception {
        assume(Capability.SHARED_HOLDS);
        String name = name();
        // Each client's waiters share one subscription, made when the first finds the name busy
        // and dropped when the last leaves: contention keeps making and dropping it. A wake-up
        // lost on the way leaves a waiter asleep until its retry hint, a holder's 60 s lease,
        // longer than every wait here.
        List<Runnable> threads = new ArrayList<>();
        AtomicInteger done = new AtomicInteger();
        for (int c = 0; c < 2; c++) {
            DistributedReadWriteLock rw = steadyClient().getReadWriteLock(name);
            for (int t = 0; t < 3; t++) {
                int thread = t;
                threads.add(() -> {
                    for (int i = 0; i < 30; i++) {
                        DistributedLock l = (i + thread) % 5 == 0 ? rw.writeLock() : rw.readLock();
                        try {
                            if (!l.tryLock(scaled(Duration.ofSeconds(20)), null)) {
                                throw new AssertionError("a waiter waited 20 s (scaled) for " + name + " after "
                                        + done.get() + " acquisitions: a wake-up was lost");
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                        l.unlock();
                        done.incrementAndGet();
                    }
                });
            }
        }
        runAll(threads, Duration.ofMinutes(2));
        assertThat(done.get()).isEqualTo(180);
    }

    @Test
    @DisplayName("every hold's fencing token is larger than the earlier write holds' and read holds'")
    void tokensGrowAcrossModes() {
        assume(Capability.SHARED_HOLDS);
        assume(Capability.FENCING_TOKENS);
        DistributedReadWriteLock rw = steadyClient().getReadWriteLock(name());
        rw.writeLock().lock();
        long write = rw.writeLock().fencingToken();
        rw.writeLock().unlock();
        rw.readLock().lock();
        long read = rw.readLock().fencingToken();
        rw.readLock().unlock();
        rw.writeLock().lock();
        long write2 = rw.writeLock().fencingToken();
        rw.writeLock().unlock();
        assertThat(read).isGreaterThan(write);
        assertThat(write2).isGreaterThan(read);
    }

    @Test
    @DisplayName("a provider without shared holds refuses the read lock, naming the capability")
    void withoutSharedHoldsTheReadLockIsRefused() {
        assumeFalse(has(Capability.SHARED_HOLDS), "the provider declares SHARED_HOLDS");
        DistributedReadWriteLock rw = client().getReadWriteLock(name());
        assertThatThrownBy(() -> rw.readLock().tryLock())
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("SHARED_HOLDS");
        assertThat(rw.writeLock().tryLock())
                .as("the write lock is the plain lock")
                .isTrue();
        rw.writeLock().unlock();
    }
}
