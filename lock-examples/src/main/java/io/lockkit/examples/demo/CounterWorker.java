package io.lockkit.examples.demo;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.jedis.JedisLockProvider;
import redis.clients.jedis.RedisClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker JVM of the {@link CounterDemo}: its threads each increment the shared counter by
 * {@code GET}, pause, {@code SET}, holding the lock around the three steps. Started by the demo,
 * not by hand.
 *
 * <p>Protocol with the coordinator: arguments are {@code name=value} pairs, the Redis URI comes in
 * the environment variable {@code LOCKKIT_DEMO_REDIS_URI} (it may hold a password); the worker prints
 * {@value #READY} once connected, starts on a {@value #GO} line on its standard input, exits when
 * that input closes (the coordinator is gone), and leaves its measurements in the {@code result}
 * file (see {@link WorkerResult}). Exit status 0 when every increment went through, 1 when some
 * failed, 2 for bad arguments, 4 when the coordinator went away.
 */
public final class CounterWorker {

    static final String READY = "READY";
    static final String GO = "GO";
    static final int EXIT_OK = 0;
    static final int EXIT_FAILURES = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_ORPHANED = 4;

    private final int worker;
    private final String uri;
    private final String lockName;
    private final String counterKey;
    private final int threads;
    private final int increments;
    private final int pauseMillis;
    private final boolean useLock;
    private final Path resultFile;

    private final AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong tokensOutOfOrder = new AtomicLong();
    private final AtomicLong made = new AtomicLong();
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();

    private CounterWorker(Map<String, String> args) {
        this.worker = Integer.parseInt(require(args, "worker"));
        this.uri = System.getenv(CounterDemo.WORKER_URI_VARIABLE);
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("the environment variable " + CounterDemo.WORKER_URI_VARIABLE
                    + " must name the Redis, e.g. redis://127.0.0.1:6379");
        }
        this.lockName = require(args, "lock");
        this.counterKey = require(args, "counter");
        this.threads = Integer.parseInt(require(args, "threads"));
        this.increments = Integer.parseInt(require(args, "increments"));
        this.pauseMillis = Integer.parseInt(require(args, "pause-ms"));
        this.useLock = Boolean.parseBoolean(require(args, "use-lock"));
        this.resultFile = Path.of(require(args, "result"));
    }

    /** Runs the worker; see the class comment for the arguments and the exit status. */
    public static void main(String[] args) {
        CounterWorker w;
        try {
            w = new CounterWorker(parse(args));
        } catch (IllegalArgumentException e) {
            System.err.println("CounterWorker: " + e.getMessage());
            System.exit(EXIT_USAGE);
            return;
        }
        System.exit(w.run());
    }

    private int run() {
        BufferedReader coordinator = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        // The factory owns the provider and closes it with itself.
        try (DistributedLockFactory locks = JedisLockProvider.create(uri).newFactory();
             RedisClient counter = RedisClient.create(URI.create(uri))) {
            counter.ping();
            System.out.println(READY);
            System.out.flush();
            if (!GO.equals(readLine(coordinator))) {
                System.err.println("the coordinator went away before the start");
                return EXIT_ORPHANED;
            }
            watchCoordinator(coordinator);

            long[][] waits = new long[threads][];
            long[][] tokens = new long[threads][];
            long[][] values = new long[threads][];
            Thread[] running = new Thread[threads];
            Instant start = Instant.now();
            for (int t = 0; t < threads; t++) {
                int index = t;
                waits[t] = new long[increments];
                tokens[t] = new long[useLock ? increments : 0];
                values[t] = new long[useLock ? increments : 0];
                running[t] = new Thread(() -> increment(locks.getLock(lockName), counter, waits[index],
                        tokens[index], values[index]), "counter-worker-" + worker + "-" + t);
                running[t].start();
            }
            for (Thread t : running) {
                t.join();
            }
            Instant end = Instant.now();

            new WorkerResult(worker, made.get(), failures.size(), micros(start), micros(end),
                    tokensOutOfOrder.get() == 0, flatten(waits, useLock), flatten(tokens, true),
                    flatten(values, true)).write(resultFile);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add("interrupted");
        } catch (IOException | RuntimeException e) {
            failures.add(e.toString());
            e.printStackTrace();
        }
        for (String failure : failures) {
            System.err.println("failure: " + failure);
        }
        return failures.isEmpty() ? EXIT_OK : EXIT_FAILURES;
    }

    /**
     * One thread's loop. Slots of acquisitions and writes it did not make stay -1; token and value
     * are recorded inside the critical section, so the lock orders them.
     */
    private void increment(DistributedLock lock, RedisClient counter, long[] waits, long[] tokens, long[] values) {
        Arrays.fill(waits, -1);
        Arrays.fill(tokens, -1);
        Arrays.fill(values, -1);
        try {
            for (int i = 0; i < increments; i++) {
                long asked = System.nanoTime();
                if (useLock) {
                    lock.lock();
                }
                waits[i] = (System.nanoTime() - asked) / 1_000;
                try {
                    // The token a real application would hand to the resource it protects.
                    long token = useLock ? lock.fencingToken() : 0;
                    String current = counter.get(counterKey);
                    long next = (current == null ? 0 : Long.parseLong(current)) + 1;
                    if (pauseMillis > 0) {
                        Thread.sleep(pauseMillis);
                    }
                    counter.set(counterKey, Long.toString(next));
                    made.incrementAndGet();
                    if (useLock) {
                        if (lastToken.getAndSet(token) >= token) {
                            tokensOutOfOrder.incrementAndGet();
                        }
                        tokens[i] = token;
                        values[i] = next;
                    }
                } finally {
                    if (useLock) {
                        lock.unlock();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add(Thread.currentThread().getName() + ": interrupted");
        } catch (RuntimeException e) {
            failures.add(Thread.currentThread().getName() + ": " + e);
        }
    }

    /** Exits when the coordinator's end of standard input closes, so no worker outlives it. */
    private static void watchCoordinator(BufferedReader coordinator) {
        Thread watch = new Thread(() -> {
            while (readLine(coordinator) != null) {
                // Nothing else is sent after GO; only the end of the stream matters.
            }
            System.err.println("the coordinator went away; stopping");
            System.exit(EXIT_ORPHANED);
        }, "coordinator-watch");
        watch.setDaemon(true);
        watch.start();
    }

    private static String readLine(BufferedReader in) {
        try {
            return in.readLine();
        } catch (IOException e) {
            return null;
        }
    }

    /** Concatenates the rows, keeping only non-negative entries (slots of increments made). */
    private static long[] flatten(long[][] rows, boolean keep) {
        if (!keep) {
            return new long[0];
        }
        return Arrays.stream(rows).flatMapToLong(Arrays::stream).filter(v -> v >= 0).toArray();
    }

    private static long micros(Instant instant) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> map = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("arguments are name=value pairs, got " + arg);
            }
            map.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return map;
    }

    private static String require(Map<String, String> args, String name) {
        String value = args.get(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("missing argument " + name + "=...");
        }
        return value;
    }
}
