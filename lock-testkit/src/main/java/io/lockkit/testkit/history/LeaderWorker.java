package io.lockkit.testkit.history;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.LeadershipOptions;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.Term;
import io.lockkit.spi.LockProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * The main class of a worker JVM that {@link LeadershipHistory} starts: it campaigns for one name
 * and reports, one line each on standard output, what a leader sees, in {@link System#nanoTime()}:
 *
 * <pre>
 * {@value #PREFIX}READY &lt;pid&gt;
 * {@value #PREFIX}ELECTED &lt;token&gt; &lt;t&gt;              onElected started
 * {@value #PREFIX}WORK &lt;token&gt; &lt;t&gt;                 the term was valid at t (read before the check)
 * {@value #PREFIX}REVOKED &lt;token&gt; &lt;reason&gt; &lt;start&gt; &lt;end&gt;   onRevoked ran
 * {@value #PREFIX}LOST &lt;token&gt; &lt;reason&gt; &lt;t&gt;       the term's lost() completed
 * </pre>
 *
 * <p>Arguments ({@code key=value}): {@code name}, {@code lease-ms}, {@code provider} (a class with a
 * public no-argument constructor implementing {@code Function<String, LockProvider>}, given the
 * backend's address from the environment variable {@value #ADDRESS_VARIABLE}), {@code mode}:
 * {@code leadership} (a {@link Leadership}; leader-only work checks its term before each step) or
 * {@code naive} (the negative control: take the lock and work, checking nothing and hearing of no
 * loss, as hand-rolled leader loops do). A line {@code quit} on standard input closes the worker
 * (its leadership is revoked as {@code CLOSED}); end of input ends it at once.
 */
public final class LeaderWorker {

    /** The prefix of every line of the protocol; other lines (logs) are the worker's own. */
    public static final String PREFIX = "@@ ";
    /** The environment variable holding the backend's address. */
    public static final String ADDRESS_VARIABLE = "LOCKKIT_LEADER_WORKER_ADDRESS";

    /** How often a leader does a step of work (and stamps it). */
    private static final long WORK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private LeaderWorker() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> a = arguments(args);
        String name = required(a, "name");
        Duration lease = Duration.ofMillis(Long.parseLong(required(a, "lease-ms")));
        LockProvider provider = provider(a);
        DistributedLockFactory factory = DistributedLockFactory.builder(provider)
                .defaultOptions(LockOptions.builder().watchdogLease(lease).build())
                .build();
        Runnable close;
        if ("naive".equals(a.getOrDefault("mode", "leadership"))) {
            close = naive(factory, name);
        } else {
            close = lead(factory, name, lease);
        }
        say("READY " + ProcessHandle.current().pid());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.trim().equals("quit")) {
                // nothing else is understood
            }
            if (line != null) {
                close.run();
                factory.close();
            }
        } catch (IOException e) {
            // the parent is gone
        }
        say("BYE");
        System.exit(0);
    }

    /** Campaigns with a {@link Leadership}; returns what closes it. */
    private static Runnable lead(DistributedLockFactory factory, String name, Duration lease) {
        Leadership leadership = factory.leadership(
                name,
                LeadershipOptions.builder()
                        .lease(lease)
                        .maxRetryDelay(Duration.ofMillis(500))
                        .onElected(t -> {
                            say("ELECTED " + t.fencingToken() + " " + System.nanoTime());
                            var unused = t.lost()
                                    .thenAccept(
                                            r -> say("LOST " + t.fencingToken() + " " + r + " " + System.nanoTime()));
                        })
                        .onRevoked((t, r) -> {
                            long start = System.nanoTime();
                            say("REVOKED " + t.fencingToken() + " " + r + " " + start + " " + System.nanoTime());
                        })
                        .build());
        Thread work = new Thread(
                () -> {
                    while (true) {
                        long now = System.nanoTime();
                        Optional<Term> t = leadership.currentTerm(); // valid at a time no earlier than now
                        t.ifPresent(term -> say("WORK " + term.fencingToken() + " " + now));
                        LockSupport.parkNanos(WORK_INTERVAL_NANOS);
                    }
                },
                "leader-work");
        work.setDaemon(true);
        work.start();
        leadership.start();
        return leadership::close;
    }

    /** Takes the lock and works as leader from then on, checking nothing: the negative control. */
    private static Runnable naive(DistributedLockFactory factory, String name) {
        Thread loop = new Thread(
                () -> {
                    try {
                        LockHandle h = factory.acquire(
                                name, LockOptions.builder().waitForever().build());
                        say("ELECTED " + h.fencingToken() + " " + System.nanoTime());
                        while (true) {
                            say("WORK " + h.fencingToken() + " " + System.nanoTime());
                            LockSupport.parkNanos(WORK_INTERVAL_NANOS);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "naive-leader");
        loop.setDaemon(true);
        loop.start();
        return () -> {};
    }

    private static void say(String line) {
        OUT.println(PREFIX + line);
    }

    /** A worker's {@code key=value} arguments. */
    static Map<String, String> arguments(String[] args) {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("arguments are key=value; got " + arg);
            }
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return a;
    }

    /** A new provider from the {@code provider} argument's class, given the address in {@value #ADDRESS_VARIABLE}. */
    static LockProvider provider(Map<String, String> args) throws ReflectiveOperationException {
        @SuppressWarnings("unchecked") // the builder took a Class<? extends Function<String, LockProvider>>
        Function<String, LockProvider> providers = Class.forName(required(args, "provider"))
                .asSubclass(Function.class)
                .getConstructor()
                .newInstance();
        String address = System.getenv(ADDRESS_VARIABLE);
        if (address == null) {
            throw new IllegalArgumentException(ADDRESS_VARIABLE + " is not set");
        }
        return providers.apply(address);
    }

    static String required(Map<String, String> args, String key) {
        String v = args.get(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("argument " + key + "=… is missing");
        }
        return v;
    }
}
