package io.lockkit.jedis.fault;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.jedis.JedisLockProviderBuilder;
import io.lockkit.jedis.internal.Keys;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What the fault tests share: providers and factories with short timeouts and leases, so a fault
 * shows within a second or two; process signals for servers the tests started; key names.
 */
final class Faults {

    /** Watchdog lease of the fault tests' factories: renewed every 500 ms. */
    static final Duration LEASE = Duration.ofMillis(1500);
    /** Command timeout of the fault tests' providers, so a stalled Redis answers with a timeout quickly. */
    static final Duration TIMEOUT = Duration.ofMillis(400);
    /** Slack for a report that happens on a scheduler thread of a loaded two-core machine. */
    static final Duration SCHEDULING_SLACK = Duration.ofMillis(150);

    /**
     * System property naming the fixture sources, comma-separated out of {@code PATH} and
     * {@code EMBEDDED} (default both, in that order), the same one the Cluster and Sentinel test
     * topologies read: {@code -Dlockkit.topology.sources=EMBEDDED} runs the suite on Redis 6.2.
     */
    static final String SOURCES_PROPERTY = "lockkit.topology.sources";

    private static final Keys KEYS = new Keys(JedisLockProvider.DEFAULT_KEY_PREFIX);

    private Faults() {}

    /**
     * A Redis of the test class's own, run as a local process: the tests restart it and send it
     * signals, which neither a container nor a server given by {@code LOCKKIT_REDIS_URI} allows.
     */
    static RedisExtension localRedis(String... serverArgs) {
        String property = System.getProperty(SOURCES_PROPERTY, "").trim();
        Source[] sources = property.isEmpty()
                ? new Source[] {Source.PATH, Source.EMBEDDED}
                : Arrays.stream(property.split(","))
                        .map(s -> Source.valueOf(s.trim().toUpperCase(Locale.ROOT)))
                        .toArray(Source[]::new);
        return RedisExtension.builder()
                .fixture(RedisFixture.builder().sources(sources).build())
                .serverArgs(serverArgs)
                .build();
    }

    /** A provider builder for {@code uri} with the short fault-test timeouts. */
    static JedisLockProviderBuilder provider(String uri) {
        return JedisLockProvider.builder().uri(uri).timeout(TIMEOUT).connectTimeout(TIMEOUT);
    }

    /** A factory over {@code provider} with watchdog lease {@code lease}, reporting losses to {@code listener}. */
    static DistributedLockFactory factory(
            JedisLockProvider provider, Duration lease, Consumer<LockLostException> listener) {
        return DistributedLockFactory.builder(provider)
                .defaultOptions(LockOptions.builder().watchdogLease(lease).build())
                .onLockLost(listener)
                .build();
    }

    /** A lock name no other test uses. */
    static String name(String prefix) {
        return prefix + ":" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    /** The Redis key of the lock hash of {@code name}. */
    static String lockKey(String name) {
        return KEYS.base(name);
    }

    /** Whether {@code name}'s lock hash names a holder (a released lock's hash may stay, with its last token only). */
    static boolean held(RedisServer redis, String name) {
        return redis.command("HGET", lockKey(name), "~o") != null;
    }

    static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    // ---- process signals: only ever for a redis-server this JVM started through the fixture ----

    /** Sends SIGSTOP and returns once the kernel reports the process stopped. */
    static void stop(RedisServer server) {
        long pid = server.pid().orElseThrow(() -> new IllegalStateException(server + " is not a local process"));
        signal("STOP", pid);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (processState(pid) != 'T') {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("redis-server " + pid + " did not stop after SIGSTOP");
            }
            Thread.onSpinWait();
        }
    }

    /** Stops {@code server} (SIGSTOP) for {@code length}, then resumes it. */
    static void stall(RedisServer server, Duration length) throws InterruptedException {
        stop(server);
        try {
            Thread.sleep(length.toMillis());
        } finally {
            resume(server);
        }
    }

    /** Sends SIGCONT. */
    static void resume(RedisServer server) {
        signal("CONT", server.pid().orElseThrow(() -> new IllegalStateException(server + " is not a local process")));
    }

    private static void signal(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: "
                        + new String(kill.getInputStream().readAllBytes()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + pid, e);
        }
    }

    /** The state letter of {@code /proc/<pid>/stat} ('T' when stopped), or '?' when unreadable. */
    private static char processState(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2);
        } catch (IOException | RuntimeException e) {
            return '?';
        }
    }

    // ---- clean-up ----

    static final class Threads implements AutoCloseable {
        private final List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                new java.util.concurrent.atomic.AtomicReference<>();

        Thread start(String name, Runnable body) {
            Thread t = new Thread(body, name);
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((thread, e) -> {
                if (!failure.compareAndSet(null, new AssertionError("thread " + thread.getName() + " failed", e))) {
                    failure.get().addSuppressed(e);
                }
            });
            threads.add(t);
            t.start();
            return t;
        }

        /** The first exception a started thread ended with (later ones suppressed in it), if any. */
        java.util.Optional<Throwable> failure() {
            return java.util.Optional.ofNullable(failure.get());
        }

        /** Joins every thread for at most {@code timeout} in total; returns whether all ended. */
        boolean join(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            for (Thread t : threads) {
                long left = deadline - System.nanoTime();
                if (left > 0) {
                    TimeUnit.NANOSECONDS.timedJoin(t, left);
                }
            }
            return threads.stream().noneMatch(Thread::isAlive);
        }

        @Override
        public void close() throws InterruptedException {
            if (!join(Duration.ZERO)) {
                threads.forEach(Thread::interrupt);
                join(Duration.ofSeconds(5));
            }
            Throwable e = failure.get();
            if (e != null) {
                throw e instanceof AssertionError a ? a : new AssertionError(e);
            }
        }
    }
}
