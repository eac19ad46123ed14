package io.lockkit.cli;

import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code lockkit list} benchmark: fills a Redis with N held locks through the provider (so the
 * keys have exactly the provider's shape), then times {@code java -Xmx32m -jar lockkit-cli.jar
 * list} (a JVM of its own, output to a file) and the same listing in-process, and reads the
 * child's GC log for the largest heap left after a collection, which stays flat when the output
 * streams.
 *
 * <pre>
 * mvn -B -q -pl lock-cli -am package -DskipTests   # builds lock-cli/target/lockkit-cli.jar
 * java -cp "$(cat cp.txt)" io.lockkit.cli.ListBenchmarkMain [--locks 100000] [--uri redis://...] [--runs 3] [--xmx 32m]
 *      [--flags "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"]
 * </pre>
 * Without {@code --uri} it starts a redis-server (PATH, else the embedded binary) on a free port and
 * stops it at the end; with one, the locks it made lapse after their 10 minute lease.
 */
public final class ListBenchmarkMain {

    private static final Pattern HEAP = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

    private ListBenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new java.util.HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        int locks = Integer.parseInt(opts.getOrDefault("locks", "100000"));
        int runs = Integer.parseInt(opts.getOrDefault("runs", "3"));
        String xmx = opts.getOrDefault("xmx", "32m");
        // e.g. --flags "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC" (the README's recommendation for a short-lived JVM)
        List<String> flags = opts.getOrDefault("flags", "").isBlank()
                ? List.of()
                : List.of(opts.get("flags").trim().split("\\s+"));
        Path jar = Paths.get(opts.getOrDefault("jar", "lock-cli/target/lockkit-cli.jar"));
        RedisServer own =
                opts.containsKey("uri") ? null : RedisFixture.builder().build().start();
        String uri = own != null ? own.uri() : opts.get("uri");
        try {
            String prefix = "bench:list:" + Long.toString(System.nanoTime(), 36) + ":";
            long fillStart = System.nanoTime();
            fill(uri, prefix, locks);
            System.out.printf(
                    "filled %d locks in %d ms (%s)%n", locks, millis(fillStart), uri.replaceAll("//[^@/]*@", "//***@"));
            for (int r = 1; r <= runs; r++) {
                child(jar, xmx, flags, uri, prefix, locks, r, false);
                child(jar, xmx, flags, uri, prefix, locks, r, true);
            }
            for (int r = 1; r <= runs; r++) {
                inProcess(uri, prefix, r);
                streamOnly(uri, prefix, r);
            }
        } finally {
            if (own != null) {
                own.close();
            }
        }
    }

    /** N locks under {@code prefix}, taken through the provider by 8 threads (batched by the provider). */
    private static void fill(String uri, String prefix, int locks) throws Exception {
        int threads = 8;
        try (JedisLockProvider provider =
                JedisLockProvider.builder().uri(uri).maxConnections(threads).build()) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                done.add(pool.submit(() -> {
                    for (int i = first; i < locks; i += threads) {
                        LockRequest request = new LockRequest(
                                prefix + i, "benchclient:owner-" + first, Duration.ofMinutes(10), Duration.ZERO);
                        if (!provider.tryAcquire(request).isAcquired()) {
                            throw new IllegalStateException("could not take " + request.name());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private static void child(
            Path jar, String xmx, List<String> flags, String uri, String prefix, int locks, int run, boolean json)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("lockkit-list", ".out");
        Path gc = Files.createTempFile("lockkit-list", ".gc");
        try {
            List<String> command = new ArrayList<>(List.of(
                    Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx" + xmx,
                    "-Xlog:gc:file=" + gc));
            command.addAll(flags);
            command.addAll(List.of("-jar", jar.toString(), "--uri", uri, "list", prefix));
            if (json) {
                command.add("--json");
            }
            long start = System.nanoTime();
            Process p = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            int code = p.waitFor();
            long ms = millis(start);
            long lines;
            try (var l = Files.lines(out, StandardCharsets.UTF_8)) {
                lines = l.count();
            }
            int maxAfter = 0;
            int maxCommitted = 0;
            int collections = 0;
            for (String line : Files.readAllLines(gc, StandardCharsets.UTF_8)) {
                Matcher m = HEAP.matcher(line);
                if (m.find()) {
                    collections++;
                    maxAfter = Math.max(maxAfter, Integer.parseInt(m.group(2)));
                    maxCommitted = Math.max(maxCommitted, Integer.parseInt(m.group(3)));
                }
            }
            System.out.printf(
                    "run %d  java -Xmx%s %s-jar lockkit-cli.jar list%s  %d locks: exit %d, %d ms wall (JVM start included),"
                            + " %d output lines, %d MB output, GC: %d collections, largest heap after GC %d MB (heap committed <= %d MB)%n",
                    run,
                    xmx,
                    flags.isEmpty() ? "" : String.join(" ", flags) + " ",
                    json ? " --json" : "",
                    locks,
                    code,
                    ms,
                    lines,
                    Files.size(out) >> 20,
                    collections,
                    maxAfter,
                    maxCommitted);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(gc);
        }
    }

    private static void inProcess(String uri, String prefix, int run) {
        long[] chars = new long[1];
        Writer sink = new Writer() {
            @Override
            public void write(char[] buf, int off, int len) {
                chars[0] += len;
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        long start = System.nanoTime();
        int code = LockkitCli.execute(
                new String[] {"--uri", uri, "list", prefix},
                new PrintWriter(sink),
                new PrintWriter(System.err, true),
                LockkitCli.Environment.of(Map.of(), null));
        System.out.printf("run %d  in-process list: exit %d, %d ms, %d chars%n", run, code, millis(start), chars[0]);
    }

    /** The factory's listing alone, no output: what the CLI adds is the difference to the in-process run. */
    private static void streamOnly(String uri, String prefix, int run) {
        long start = System.nanoTime();
        long n;
        try (io.lockkit.DistributedLockFactory f =
                        io.lockkit.DistributedLockFactory.create(JedisLockProvider.create(uri));
                java.util.stream.Stream<io.lockkit.LockInfo> s = f.operations().locks(prefix)) {
            n = s.count();
        }
        System.out.printf("run %d  factory.locks(prefix).count() alone: %d locks, %d ms%n", run, n, millis(start));
    }

    private static long millis(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
