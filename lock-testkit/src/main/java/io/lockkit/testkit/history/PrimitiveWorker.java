package io.lockkit.testkit.history;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedReadWriteLock;
import io.lockkit.DistributedSemaphore;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.MultiLockHandle;
import io.lockkit.testkit.history.HoldHistory.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The main class of a worker JVM that {@link PrimitiveHistory} starts: several threads take one
 * primitive over and over and report, one line per event on standard output, each hold as its
 * holder saw it, in {@link System#nanoTime()}:
 *
 * <pre>
 * {@value LeaderWorker#PREFIX}READY &lt;pid&gt;
 * {@value LeaderWorker#PREFIX}HOLD &lt;token&gt; &lt;E|S&gt; &lt;weight&gt; &lt;start&gt; &lt;end&gt; &lt;valid at end&gt; &lt;outcome&gt;
 * {@value LeaderWorker#PREFIX}MULTI &lt;start&gt; &lt;end&gt; &lt;asked&gt; &lt;member&gt;...   a multi-lock granted (see below)
 * {@value LeaderWorker#PREFIX}LOST &lt;token&gt; &lt;t&gt; &lt;name index&gt; the factory's loss listener heard of it
 * {@value LeaderWorker#PREFIX}MISS &lt;timeout|failure|lost&gt;  an acquisition that timed out, failed, or threw a loss
 * {@value LeaderWorker#PREFIX}DIED &lt;exception class&gt;        a thread ended on an unexpected exception
 * </pre>
 *
 * <p>Names are given as their index in the worker's names ({@link #names}): one name, or for the
 * multi-lock a pool of them. A multi-lock's line gives the indices asked for, separated by commas,
 * then each member as {@code <index>:<token>:<valid at end>:<outcome>}; one line, so that a killed
 * worker never leaves half a grant reported.
 *
 * <p>Arguments ({@code key=value}): {@code name}, {@code lease-ms}, {@code provider} (as for
 * {@link LeaderWorker}), {@code primitive} ({@link PrimitiveHistory.Primitive}, lower case with
 * dashes), {@code capacity} (a semaphore's), {@code names} (the multi-lock's pool), {@code threads},
 * {@code wait-ms}. A read/write lock's threads take the write lock one time in ten; a semaphore's
 * take 1 or 2 permits; the fair lock's threads hold it as threads; the multi-lock's take 2 or 3
 * names of the pool, passed in a random order (so that opposite orders meet). A line {@code quit}
 * on standard input stops the threads, releases and closes the factory; end of input ends the
 * worker at once.
 */
public final class PrimitiveWorker {

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private final DistributedLockFactory factory;
    private final PrimitiveHistory.Primitive primitive;
    private final List<String> names;
    private final int capacity;
    private final Duration waitDuration;
    private final LockOptions wait;
    private final AtomicInteger failuresLogged = new AtomicInteger();
    private volatile boolean stopped;

    private PrimitiveWorker(
            DistributedLockFactory factory,
            PrimitiveHistory.Primitive primitive,
            List<String> names,
            int capacity,
            Duration wait) {
        this.factory = factory;
        this.primitive = primitive;
        this.names = names;
        this.capacity = capacity;
        this.waitDuration = wait;
        this.wait = LockOptions.waitAtMost(wait);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = LeaderWorker.arguments(args);
        List<String> names = names(LeaderWorker.required(a, "name"), Integer.parseInt(a.getOrDefault("names", "1")));
        PrimitiveWorker worker = new PrimitiveWorker(
                factory(a, names),
                PrimitiveHistory.Primitive.valueOf(LeaderWorker.required(a, "primitive")
                        .toUpperCase(Locale.ROOT)
                        .replace('-', '_')),
                names,
                Integer.parseInt(LeaderWorker.required(a, "capacity")),
                Duration.ofMillis(Long.parseLong(LeaderWorker.required(a, "wait-ms"))));
        DistributedLockFactory factory = worker.factory;
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

    /** The names a worker takes: {@code name} alone, or a pool of {@code count} names made from it. */
    static List<String> names(String name, int count) {
        if (count <= 1) {
            return List.of(name);
        }
        List<String> pool = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            pool.add(name + ":" + i);
        }
        return List.copyOf(pool);
    }

    /** The worker's factory: its provider, the lease, losses reported with the name's index. */
    private static DistributedLockFactory factory(Map<String, String> a, List<String> names)
            throws ReflectiveOperationException {
        Duration lease = Duration.ofMillis(Long.parseLong(LeaderWorker.required(a, "lease-ms")));
        return DistributedLockFactory.builder(LeaderWorker.provider(a))
                .defaultOptions(LockOptions.builder().watchdogLease(lease).build())
                .onLockLost(e ->
                        say("LOST " + e.fencingToken() + " " + System.nanoTime() + " " + names.indexOf(e.lockName())))
                .build();
    }

    /** One thread's loop until told to stop. */
    private void contend() {
        String name = names.get(0);
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
                    case MULTI_LOCK -> holdMultiLock(random);
                }
            } catch (LockNotAcquiredException e) {
                say("MISS timeout");
            } catch (LockLostException e) {
                // Outside every acquisition's contract (a timeout or a backend failure is): counted, and the
                // run fails on it, but goes on so that its history is still checked.
                say("MISS lost");
                if (failuresLogged.getAndIncrement() < 5) {
                    System.err.println("acquisition threw " + e);
                }
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

    private void holdMultiLock(ThreadLocalRandom random) throws InterruptedException {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            order.add(i);
        }
        Collections.shuffle(order, random);
        List<Integer> asked = order.subList(0, Math.min(names.size(), 2 + random.nextInt(2)));
        MultiLockHandle h = factory.acquireAll(asked.stream().map(names::get).toList(), wait);
        long start = System.nanoTime();
        List<LockHandle> members = h.members();
        long[] tokens = members.stream().mapToLong(LockHandle::fencingToken).toArray();
        work();
        boolean[] valid = new boolean[members.size()];
        for (int i = 0; i < valid.length; i++) {
            valid[i] = members.get(i).isValid();
        }
        long end = System.nanoTime();
        Map<String, Outcome> outcomes = release(h);
        StringBuilder line = new StringBuilder("MULTI ")
                .append(start)
                .append(' ')
                .append(end)
                .append(' ');
        line.append(String.join(",", asked.stream().map(String::valueOf).toList()));
        for (int i = 0; i < valid.length; i++) {
            String member = members.get(i).name();
            line.append(' ')
                    .append(names.indexOf(member))
                    .append(':')
                    .append(tokens[i])
                    .append(':');
            line.append(valid[i]).append(':').append(outcomes.getOrDefault(member, Outcome.RELEASED));
        }
        say(line.toString());
    }

    /**
     * Releases a multi-lock and says how it went for each member it names: a member reported lost
     * at release by name; every member not lost when the release failed otherwise (which of them
     * the backend released is then unknown); the others released.
     */
    private static Map<String, Outcome> release(MultiLockHandle h) {
        RuntimeException failure;
        try {
            h.release();
            return Map.of();
        } catch (LockLostException | LockException e) {
            failure = e;
        }
        Map<String, Outcome> outcomes = new HashMap<>();
        List<Throwable> all = new ArrayList<>(List.of(failure.getSuppressed()));
        all.add(failure);
        boolean unknown = false;
        for (Throwable t : all) {
            if (t instanceof LockLostException lost) {
                outcomes.put(lost.lockName(), Outcome.LOST_AT_RELEASE);
            } else {
                unknown = true;
            }
        }
        if (unknown) {
            h.members().forEach(m -> outcomes.putIfAbsent(m.name(), Outcome.RELEASE_FAILED));
        }
        return outcomes;
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
