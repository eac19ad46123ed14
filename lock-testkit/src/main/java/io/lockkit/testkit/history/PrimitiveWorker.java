package io.lockkit.testkit.history;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedReadWriteLock;
import io.lockkit.DistributedSemaphore;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.testkit.history.HoldHistory.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The main class of a worker JVM that {@link PrimitiveHistory} starts: several threads take one
 * primitive of one name over and over and report, one line per event on standard output, each
 * hold as its holder saw it, in {@link System#nanoTime()}:
 *
 * <pre>
 * {@value LeaderWorker#PREFIX}READY &lt;pid&gt;
 * {@value LeaderWorker#PREFIX}HOLD &lt;token&gt; &lt;E|S&gt; &lt;weight&gt; &lt;start&gt; &lt;end&gt; &lt;valid at end&gt; &lt;outcome&gt;
 * {@value LeaderWorker#PREFIX}LOST &lt;token&gt; &lt;t&gt;          the factory's loss listener heard of it
 * {@value LeaderWorker#PREFIX}MISS &lt;timeout|failure&gt;       an acquisition that timed out or failed
 * {@value LeaderWorker#PREFIX}DIED &lt;exception class&gt;        a thread ended on an unexpected exception
 * </pre>
 *
 * <p>Arguments ({@code key=value}): {@code name}, {@code lease-ms}, {@code provider} (as for
 * {@link LeaderWorker}), {@code primitive} ({@link PrimitiveHistory.Primitive}, lower case with
 * dashes), {@code capacity} (a semaphore's), {@code threads}, {@code wait-ms}. A read/write lock's
 * threads take the write lock one time in ten; a semaphore's take 1 or 2 permits; the fair lock's
 * threads hold it as threads. A line {@code quit} on standard input stops the threads, releases
 * and closes the factory; end of input ends the worker at once.
 */
public final class PrimitiveWorker {

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private final DistributedLockFactory factory;
    private final PrimitiveHistory.Primitive primitive;
    private final String name;
    private final int capacity;
    private final Duration waitDuration;
    private final LockOptions wait;
    private final AtomicInteger failuresLogged = new AtomicInteger();
    private volatile boolean stopped;

    private PrimitiveWorker(
            DistributedLockFactory factory,
            PrimitiveHistory.Primitive primitive,
            String name,
            int capacity,
            Duration wait) {
        this.factory = factory;
        this.primitive = primitive;
        this.name = name;
        this.capacity = capacity;
        this.waitDuration = wait;
        this.wait = LockOptions.waitAtMost(wait);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = LeaderWorker.arguments(args);
        Duration lease = Duration.ofMillis(Long.parseLong(LeaderWorker.required(a, "lease-ms")));
        DistributedLockFactory factory = DistributedLockFactory.builder(LeaderWorker.provider(a))
                .defaultOptions(LockOptions.builder().watchdogLease(lease).build())
                .onLockLost(e -> say("LOST " + e.fencingToken() + " " + System.nanoTime()))
                .build();
        PrimitiveWorker worker = new PrimitiveWorker(
                factory,
                PrimitiveHistory.Primitive.valueOf(LeaderWorker.required(a, "primitive")
                        .toUpperCase(Locale.ROOT)
                        .replace('-', '_')),
                LeaderWorker.required(a, "name"),
                Integer.parseInt(LeaderWorker.required(a, "capacity")),
                Duration.ofMillis(Long.parseLong(LeaderWorker.required(a, "wait-ms"))));
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < Integer.parseInt(LeaderWorker.required(a, "threads")); i++) {
            Thread t = new Thread(worker::contend, "primitive-worker-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        say("READY " + ProcessHandle.current().pid());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.trim().equals("quit")) {
                // nothing else is understood
            }
            if (line != null) {
                worker.stopped = true;
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(10));
                }
                factory.close();
            }
        } catch (IOException e) {
            // the parent is gone
        }
        say("BYE");
        System.exit(0);
    }

    /** One thread's loop until told to stop. */
    private void contend() {
        DistributedReadWriteLock rw = factory.getReadWriteLock(name);
        DistributedSemaphore semaphore = factory.getSemaphore(name, Math.max(1, capacity));
        DistributedLock fair = factory.getFairLock(name);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stopped) {
            try {
                switch (primitive) {
                    case READ_WRITE_LOCK -> {
                        boolean write = random.nextInt(10) == 0;
                        holdHandle(write ? rw.acquireWrite(wait) : rw.acquireRead(wait), write, 1);
                    }
                    case SEMAPHORE -> {
                        int permits = 1 + random.nextInt(Math.min(2, capacity));
                        holdHandle(semaphore.acquire(permits, wait), false, permits);
                    }
                    case FAIR_LOCK -> holdThreadLock(fair);
                }
            } catch (LockNotAcquiredException e) {
                say("MISS timeout");
            } catch (LockException e) {
                say("MISS failure"); // backend down or stalled: try again, as an application would
                if (failuresLogged.getAndIncrement() < 5) {
                    System.err.println("acquisition failed: " + e); // the first few, for the run's failure message
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // Not a backend failure (an unsupported primitive, a bug): the driver stops the run with it.
                e.printStackTrace();
                say("DIED " + e.getClass().getName());
                return;
            }
        }
    }

    private void holdHandle(LockHandle h, boolean exclusive, int weight) throws InterruptedException {
        long start = System.nanoTime();
        long token = h.fencingToken();
        work();
        boolean valid = h.isValid();
        long end = System.nanoTime();
        report(token, exclusive, weight, start, end, valid, h::release);
    }

    private void holdThreadLock(DistributedLock lock) throws InterruptedException {
        if (!lock.tryLock(waitDuration, null)) {
            say("MISS timeout");
            return;
        }
        long start = System.nanoTime();
        long token = lock.fencingToken();
        work();
        boolean valid = lock.isHeldByCurrentThread(); // not remainingLease(): it throws once the hold is known lost
        long end = System.nanoTime();
        report(token, true, 1, start, end, valid, lock::unlock);
    }

    private static void report(
            long token, boolean exclusive, int weight, long start, long end, boolean valid, Runnable release) {
        Outcome outcome = HoldHistory.release(release);
        say("HOLD " + token + " " + (exclusive ? "E" : "S") + " " + weight + " " + start + " " + end + " " + valid + " "
                + outcome);
    }

    /** A short critical section; now and then (1 in 200) a long one, so that faults also meet holds midway. */
    private static void work() throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (random.nextInt(200) == 0) {
            Thread.sleep(150 + random.nextInt(150));
            return;
        }
        long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(50 + random.nextInt(200));
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    private static void say(String line) {
        OUT.println(LeaderWorker.PREFIX + line);
    }
}
