package io.lockkit.testkit.history;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.testkit.history.HoldHistory.Hold;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The clients' side of a {@link LockHistory} run: each client thread takes the lock over and over,
 * through a {@link LockHandle} or as a thread ({@link DistributedLock}), with a short critical
 * section and now and then a long one, and records every hold with how it ended. Thread-safe.
 */
final class HistoryClients {

    private final String lockName;
    private final Duration wait;

    private final ConcurrentLinkedQueue<Hold> history = new ConcurrentLinkedQueue<>();
    /** Which thread recorded each hold, by identity: named in the report of a violation. */
    private final Map<Hold, String> holders = Collections.synchronizedMap(new IdentityHashMap<>());

    private final Map<Long, Long> lossHeardAt = new ConcurrentHashMap<>();
    private final AtomicInteger acquisitions = new AtomicInteger();
    private final AtomicInteger acquireTimeouts = new AtomicInteger();
    private final AtomicInteger acquireFailures = new AtomicInteger();
    private final AtomicInteger longHolds = new AtomicInteger();

    HistoryClients(String lockName, Duration wait) {
        this.lockName = lockName;
        this.wait = wait;
    }

    /** What a client's loss listener does: notes when the loss of a token was heard. */
    void lossHeard(LockLostException e) {
        lossHeardAt.putIfAbsent(e.fencingToken(), System.nanoTime());
    }

    /** One client thread's loop, until {@code stop} says so or the thread is interrupted. */
    void contend(int client, DistributedLockFactory f, boolean handles, BooleanSupplier stop) {
        DistributedLock lock = f.getLock(lockName);
        while (!stop.getAsBoolean()) {
            try {
                if (handles) {
                    LockHandle h = f.acquire(lockName, LockOptions.waitAtMost(wait));
                    long start = System.nanoTime();
                    long token = h.fencingToken();
                    work();
                    boolean valid = h.isValid();
                    long end = System.nanoTime();
                    record(client, token, start, end, valid, h::release);
                } else {
                    if (!lock.tryLock(wait, null)) {
                        acquireTimeouts.incrementAndGet();
                        continue;
                    }
                    long start = System.nanoTime();
                    long token = lock.fencingToken();
                    work();
                    // Not remainingLease(): it throws once the hold is known lost (a fault may land here).
                    boolean valid = lock.isHeldByCurrentThread();
                    long end = System.nanoTime();
                    record(client, token, start, end, valid, lock::unlock);
                }
            } catch (LockNotAcquiredException e) {
                acquireTimeouts.incrementAndGet();
            } catch (LockException e) {
                acquireFailures.incrementAndGet(); // backend down or stalled: try again
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void record(int client, long token, long start, long end, boolean valid, Runnable release) {
        Hold hold = new Hold(client, token, start, end, valid, HoldHistory.release(release));
        holders.put(hold, Thread.currentThread().getName());
        history.add(hold);
        acquisitions.incrementAndGet();
    }

    /** A short critical section; now and then a long one, so that faults also meet holds midway. */
    private void work() throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (random.nextInt(400) == 0) {
            longHolds.incrementAndGet();
            Thread.sleep(150 + random.nextInt(150));
            return;
        }
        long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(20);
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    int acquisitions() {
        return acquisitions.get();
    }

    int acquireTimeouts() {
        return acquireTimeouts.get();
    }

    int acquireFailures() {
        return acquireFailures.get();
    }

    /** How many long critical sections began so far: a fault aimed at one waits for the next. */
    int longHolds() {
        return longHolds.get();
    }

    /** The thread that recorded {@code hold}. */
    String holder(Hold hold) {
        return String.valueOf(holders.get(hold));
    }

    List<Hold> holds() {
        return List.copyOf(history);
    }

    Map<Long, Long> lossHeardAt() {
        return Map.copyOf(lossHeardAt);
    }
}
