package io.lockkit.benchmarks;

import io.lockkit.benchmarks.MemoryPeers.Parked;
import io.lockkit.benchmarks.MemoryPeers.Peer;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * P8, memory on Redis: what each state of a lock costs the server, lockkit beside Redisson 4.7.0
 * (held lock, a queue of 1, 10 and 100 waiters of another client, a read/write lock with 3 readers,
 * a semaphore with 5 permits held), and what remains of {@code --names} distinct names (1,000,000
 * unless given) once each was locked and released. Byte and key counts do not depend on the
 * machine's load, so nothing is pinned. Writes {@code memory-p8.md} to {@code --out}
 * ({@code results/raw} unless given) and prints it.
 */
public final class MemoryBenchmarkMain {

    static final String COMMAND = "mvn -B -q install -DskipTests -pl lock-bom,lock-benchmarks -am && "
            + "mvn -B -q -pl lock-benchmarks exec:exec -Dbench.main=io.lockkit.benchmarks.MemoryBenchmarkMain";
    private static final int MASS_THREADS = 32;

    /** One measured state: its keys with their bytes, and the used_memory delta. */
    record Sample(String library, String state, Map<String, Long> keys, long usedDelta) {
        long keyBytes() {
            return keys.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** A state as a library reaches it; the result leaves it. */
    interface State {
        Parked reach(Peer peer, String name) throws InterruptedException;
    }

    private MemoryBenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of("results/raw");
        int names = 1_000_000;
        for (String a : args) {
            if (a.startsWith("--out=")) {
                out = Path.of(a.substring("--out=".length()));
            } else if (a.startsWith("--names=")) {
                names = Integer.parseInt(a.substring("--names=".length()));
            }
        }
        RedisFixture fixture =
                RedisFixture.builder().sources(Source.PATH, Source.EMBEDDED).build();
        StringBuilder md = new StringBuilder();
        try (RedisServer server = fixture.start()) {
            RedisMemory redis = new RedisMemory(server);
            md.append(String.format(
                    Locale.ROOT, "Redis %s (%s); command: `%s`%n%n", server.version(), server.source(), COMMAND));
            List<Sample> samples = new ArrayList<>();
            try (Peer lockkit = new MemoryPeers.Lockkit(server.uri());
                    Peer redisson = new MemoryPeers.Redisson(server.uri())) {
                for (boolean record : new boolean[] {false, true}) { // the first pass loads scripts and classes
                    for (Peer peer : List.of(lockkit, redisson)) {
                        for (Map.Entry<String, State> s : states(peer).entrySet()) {
                            Sample sample = measure(redis, peer, s.getKey(), s.getValue());
                            if (record) {
                                samples.add(sample);
                                System.out.println(sample.library() + " / " + sample.state() + ": " + sample.keys()
                                        + " used_memory +" + sample.usedDelta());
                            }
                        }
                    }
                }
                md.append(stateTable(samples))
                        .append('\n')
                        .append(keyTable(samples))
                        .append('\n');
                if (names > 0) { // --names=0: the states only
                    md.append(mass(redis, (MemoryPeers.Lockkit) lockkit, (MemoryPeers.Redisson) redisson, names));
                }
            }
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("memory-p8.md"), md.toString());
        System.out.println(md);
    }

    /** The states in report order; the lock kinds of the queue rows are each library's plain and fair lock. */
    static Map<String, State> states(Peer peer) {
        Map<String, State> states = new java.util.LinkedHashMap<>();
        states.put("held lock (watchdog)", (p, n) -> Parked.holding(1, p.lock(false, n, false)));
        for (boolean fair : new boolean[] {false, true}) {
            for (int waiters : new int[] {1, 10, 100}) {
                String kind = fair ? "fair lock" : "lock";
                states.put(
                        String.format(Locale.ROOT, "held %s + %d waiter%s", kind, waiters, waiters == 1 ? "" : "s"),
                        (p, n) -> queue(p, n, fair, waiters));
            }
        }
        states.put("read/write lock, 3 readers", (p, n) -> Parked.holding(3, p.read(n)));
        states.put("semaphore, 5 of 5 permits held", (p, n) -> Parked.holding(5, p.permit(n, 5)));
        return states;
    }

    /** The holder's thread holds; {@code waiters} threads of the other client wait. */
    private static Parked queue(Peer p, String name, boolean fair, int waiters) throws InterruptedException {
        Parked holder = Parked.holding(1, p.lock(false, name, fair));
        Parked waiting = Parked.waiting(waiters, p.lock(true, name, fair));
        return waiting.then(holder);
    }

    private static Sample measure(RedisMemory redis, Peer peer, String state, State s) throws InterruptedException {
        redis.flushAll();
        Thread.sleep(2000); // the last state's connections and buffers settle
        long before = redis.usedMemory();
        Parked parked = s.reach(peer, "p8:" + state.replace(' ', '-'));
        Map<String, Long> keys = redis.settledKeys(Duration.ofSeconds(10));
        long after = redis.usedMemory();
        parked.stop();
        return new Sample(peer.name(), state, keys, after - before);
    }

    private static String stateTable(List<Sample> samples) {
        StringBuilder sb = new StringBuilder(
                "| state | lockkit keys | lockkit bytes (MEMORY USAGE) | lockkit used_memory Δ less client buffers | Redisson keys | Redisson bytes | Redisson used_memory Δ less client buffers | lockkit ÷ Redisson (bytes) |\n"
                        + "|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Sample l : samples) {
            if (!l.library().equals("lockkit")) {
                continue;
            }
            Sample r = samples.stream()
                    .filter(s -> !s.library().equals("lockkit") && s.state().equals(l.state()))
                    .findFirst()
                    .orElseThrow();
            sb.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %,d | %,d | %d | %,d | %,d | %.2f× |%n",
                    l.state(),
                    l.keys().size(),
                    l.keyBytes(),
                    l.usedDelta(),
                    r.keys().size(),
                    r.keyBytes(),
                    r.usedDelta(),
                    l.keyBytes() / (double) Math.max(1, r.keyBytes())));
        }
        return sb.toString();
    }

    private static String keyTable(List<Sample> samples) {
        StringBuilder sb = new StringBuilder("| library | state | key | bytes |\n|---|---|---|---:|\n");
        for (Sample s : samples) {
            for (Map.Entry<String, Long> k : s.keys().entrySet()) {
                sb.append(String.format(
                        Locale.ROOT, "| %s | %s | `%s` | %,d |%n", s.library(), s.state(), k.getKey(), k.getValue()));
            }
        }
        return sb.toString();
    }

    /** Locks and releases {@code names} distinct names on 32 threads per library; what remains per name. */
    private static String mass(RedisMemory redis, MemoryPeers.Lockkit lockkit, MemoryPeers.Redisson redisson, int names)
            throws InterruptedException {
        StringBuilder sb = new StringBuilder(
                String.format(
                        Locale.ROOT,
                        "| library | names locked and released | took | keys left | used_memory Δ less client buffers | per name: keys, used_memory Δ, MEMORY USAGE of a left key (mean of ≤ 1,000) | PTTL of a left key |%n|---|---:|---:|---:|---:|---|---:|%n"));
        sb.append(massRow(redis, "lockkit", names, i -> lockkit.holder().getLock("mass:" + i)));
        sb.append(massRow(redis, "Redisson 4.7.0", names, i -> redisson.holder().getLock("mass:" + i)));
        return sb.toString();
    }

    private static String massRow(
            RedisMemory redis, String library, int names, Function<Integer, java.util.concurrent.locks.Lock> lock)
            throws InterruptedException {
        redis.flushAll();
        long before = redis.usedMemory();
        long t0 = System.nanoTime();
        AtomicLong done = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < MASS_THREADS; t++) {
            int first = t;
            Thread th = new Thread(() -> {
                for (int i = first; i < names; i += MASS_THREADS) {
                    java.util.concurrent.locks.Lock l = lock.apply(i);
                    l.lock();
                    l.unlock();
                    done.incrementAndGet();
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        long keys = redis.dbSize();
        long used = redis.usedMemory() - before;
        List<String> sample = redis.scan(1000);
        double mean = 0;
        String pttl = "—";
        if (!sample.isEmpty()) {
            Map<String, Long> usage = new java.util.TreeMap<>();
            for (String k : sample) {
                usage.put(k, (Long) redis.command("MEMORY", "USAGE", k, "SAMPLES", "0"));
            }
            mean = usage.values().stream().mapToLong(Long::longValue).average().orElse(0);
            pttl = redis.command("PTTL", sample.get(0)) + " ms";
        }
        String row = String.format(
                Locale.ROOT,
                "| %s | %,d | %.1f s | %,d | %,d B | %.3f keys, %.1f B, %.1f B | %s |%n",
                library,
                done.get(),
                millis / 1000.0,
                keys,
                used,
                keys / (double) names,
                used / (double) names,
                mean,
                pttl);
        System.out.print(row);
        return row + expiry(redis, library, keys);
    }

    /** How long the left keys take to go (polled every 5 s, at most 3 minutes). */
    private static String expiry(RedisMemory redis, String library, long keys) throws InterruptedException {
        if (keys == 0) {
            return "";
        }
        long t0 = System.nanoTime();
        long left = keys;
        while (left > 0 && System.nanoTime() - t0 < Duration.ofMinutes(3).toNanos()) {
            Thread.sleep(5000);
            left = redis.dbSize();
        }
        String line = String.format(
                Locale.ROOT, "| %s, %.0f s later | | | %,d | | | |%n", library, (System.nanoTime() - t0) / 1e9, left);
        System.out.print(line);
        return line;
    }
}
