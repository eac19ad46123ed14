package io.lockkit.examples.demo;

import java.time.Duration;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * The counter demo's settings: each from its argument, else from the system property
 * {@code lockkit.demo.<name>}, else the default. Immutable; a bad value fails parsing with an
 * {@link IllegalArgumentException} naming the argument.
 */
final class DemoOptions {

    static final int DEFAULT_WORKERS = 3;
    static final int DEFAULT_THREADS = 4;
    // 3 × 4 × 500 = 6,000 increments: about 10-15 s on a 2-core machine (≈ 550 per second with a 1 ms pause).
    static final int DEFAULT_INCREMENTS = 500;
    static final int DEFAULT_PAUSE_MILLIS = 1;
    /** The part of the default timeout that does not grow with the work: JVM and Redis start-up. */
    static final Duration TIMEOUT_BASE = Duration.ofSeconds(60);
    /** The part of the default timeout per increment, some ten times what one takes on a slow machine. */
    static final Duration TIMEOUT_PER_INCREMENT = Duration.ofMillis(20);

    static final String PROPERTY_PREFIX = "lockkit.demo.";

    static final String USAGE = String.join(
            "\n",
            "Usage: CounterDemo [options]",
            "  Starts a Redis (or uses LOCKKIT_REDIS_URI / -Dlockkit.redis.uri), runs worker JVMs whose threads",
            "  increment one Redis counter by GET, pause, SET under one lockkit lock, and checks that no",
            "  increment was lost.",
            "",
            "  --workers=N      worker JVMs (default " + DEFAULT_WORKERS + ")",
            "  --threads=N      threads per worker (default " + DEFAULT_THREADS + ")",
            "  --increments=N   increments per thread (default " + DEFAULT_INCREMENTS + ")",
            "  --pause-ms=N     pause between reading and writing the counter, in ms (default " + DEFAULT_PAUSE_MILLIS
                    + ")",
            "  --timeout-s=N    stop workers still running after N s (default " + TIMEOUT_BASE.toSeconds() + " s + "
                    + TIMEOUT_PER_INCREMENT.toMillis() + " ms per increment)",
            "  --backend=B      redis (default) or jdbc: the lock and the counter in PostgreSQL (the one named by",
            "                   LOCKKIT_JDBC_URL, else the embedded PostgreSQL binaries) instead of Redis",
            "  --uri=URI        use the Redis at URI, e.g. redis://127.0.0.1:6379 (with --backend=jdbc: the",
            "                   PostgreSQL at a JDBC URL, jdbc:postgresql://...), instead of starting one",
            "  --no-lock        run without the lock, to see the same code lose updates (exits 1)",
            "  -h, --help       print this text",
            "",
            "  Each option may also be given as a system property, e.g. -Dlockkit.demo.workers=5",
            "  or -Dlockkit.demo.no-lock=true.",
            "",
            "Exit status: 0 when every increment is found; 1 when updates were lost or fencing tokens",
            "went backwards; 2 for bad arguments; 3 when Redis or a worker failed.");

    final int workers;
    final int threads;
    final int increments;
    final int pauseMillis;
    final Duration timeout;
    /** An explicit Redis URI, or null to let the fixture choose. */
    final String uri;

    final boolean useLock;
    final boolean help;
    /** {@code redis} or {@code jdbc}. */
    final String backend;

    private DemoOptions(
            int workers,
            int threads,
            int increments,
            int pauseMillis,
            Duration timeout,
            String uri,
            boolean useLock,
            boolean help,
            String backend) {
        this.backend = backend;
        this.workers = workers;
        this.threads = threads;
        this.increments = increments;
        this.pauseMillis = pauseMillis;
        this.timeout = timeout;
        this.uri = uri;
        this.useLock = useLock;
        this.help = help;
    }

    /** Increments all workers make together. */
    long expectedIncrements() {
        return (long) workers * threads * increments;
    }

    /**
     * Parses {@code --name=value} arguments over the {@code lockkit.demo.*} values {@code properties}
     * returns (null when unset); blank arguments are ignored.
     *
     * @throws IllegalArgumentException for an unknown argument or a value out of range
     */
    static DemoOptions parse(String[] args, UnaryOperator<String> properties) {
        String workers = properties.apply(PROPERTY_PREFIX + "workers");
        String threads = properties.apply(PROPERTY_PREFIX + "threads");
        String increments = properties.apply(PROPERTY_PREFIX + "increments");
        String pause = properties.apply(PROPERTY_PREFIX + "pause-ms");
        String timeout = properties.apply(PROPERTY_PREFIX + "timeout-s");
        String uri = properties.apply(PROPERTY_PREFIX + "uri");
        String noLock = properties.apply(PROPERTY_PREFIX + "no-lock");
        String backend = properties.apply(PROPERTY_PREFIX + "backend");
        boolean help = false;
        java.util.List<String> joined = new java.util.ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            // "--backend jdbc" as well as "--backend=jdbc"
            if ("--backend".equals(args[i] == null ? null : args[i].trim())
                    && i + 1 < args.length
                    && args[i + 1] != null
                    && !args[i + 1].startsWith("-")) {
                joined.add("--backend=" + args[++i].trim());
            } else {
                joined.add(args[i]);
            }
        }
        for (String arg : joined) {
            if (arg == null || arg.isBlank()) {
                continue;
            }
            String a = arg.trim();
            int eq = a.indexOf('=');
            String name = eq < 0 ? a : a.substring(0, eq);
            String value = eq < 0 ? null : a.substring(eq + 1);
            switch (name) {
                case "-h":
                case "--help":
                    help = true;
                    break;
                case "--no-lock":
                    noLock = value == null ? "true" : value;
                    break;
                case "--workers":
                    workers = required(name, value);
                    break;
                case "--threads":
                    threads = required(name, value);
                    break;
                case "--increments":
                    increments = required(name, value);
                    break;
                case "--pause-ms":
                    pause = required(name, value);
                    break;
                case "--timeout-s":
                    timeout = required(name, value);
                    break;
                case "--uri":
                    uri = required(name, value);
                    break;
                case "--backend":
                    backend = required(name, value);
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument: " + arg);
            }
        }
        int w = intValue("workers", workers, DEFAULT_WORKERS, 1, 64);
        int t = intValue("threads", threads, DEFAULT_THREADS, 1, 256);
        int n = intValue("increments", increments, DEFAULT_INCREMENTS, 1, 1_000_000);
        int p = intValue("pause-ms", pause, DEFAULT_PAUSE_MILLIS, 0, 10_000);
        long total = (long) w * t * n;
        Duration defaultTimeout =
                TIMEOUT_BASE.plus(TIMEOUT_PER_INCREMENT.multipliedBy(total)).plus(Duration.ofMillis(total * p));
        Duration limit = timeout == null || timeout.isBlank()
                ? defaultTimeout
                : Duration.ofSeconds(intValue("timeout-s", timeout, 0, 1, 86_400));
        String b =
                backend == null || backend.isBlank() ? "redis" : backend.trim().toLowerCase(Locale.ROOT);
        if (!b.equals("redis") && !b.equals("jdbc")) {
            throw new IllegalArgumentException("backend must be redis or jdbc, was " + backend);
        }
        String u = uri == null || uri.isBlank() ? null : uri.trim();
        if (u != null && b.equals("redis") && !u.startsWith("redis://")) {
            throw new IllegalArgumentException("uri must look like redis://host:port, was " + u);
        }
        if (u != null && b.equals("jdbc") && !u.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException(
                    "uri must be a JDBC URL jdbc:postgresql://host:port/database with --backend=jdbc, was "
                            + u.replaceAll("(?i)(password=)[^&]*", "$1***"));
        }
        return new DemoOptions(w, t, n, p, limit, u, !booleanValue("no-lock", noLock), help, b);
    }

    private static String required(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " needs a value: " + name + "=...");
        }
        return value;
    }

    private static int intValue(String name, String value, int defaultValue, int min, int max) {
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        int parsed;
        try {
            parsed = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, was " + value, e);
        }
        if (parsed < min || parsed > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", was " + parsed);
        }
        return parsed;
    }

    private static boolean booleanValue(String name, String value) {
        if (value == null || value.isBlank()) {
            return false;
        }
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true":
                return true;
            case "false":
                return false;
            default:
                throw new IllegalArgumentException(name + " must be true or false, was " + value);
        }
    }
}
