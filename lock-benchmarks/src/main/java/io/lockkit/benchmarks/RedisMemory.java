package io.lockkit.benchmarks;

import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What a state of some lock library costs a Redis: every key with its {@code MEMORY USAGE}
 * ({@code SAMPLES 0}: every element counted) and the {@code INFO memory} {@code used_memory}
 * delta, which also counts what no key shows (pub/sub channels, client buffers). Commands go
 * through the fixture's own client, never through a library under test. Not thread-safe.
 */
final class RedisMemory {

    private final RedisServer server;

    RedisMemory(RedisServer server) {
        this.server = server;
    }

    /** Every key with its bytes, sorted by key; SCAN, never KEYS. */
    Map<String, Long> keys() {
        Map<String, Long> keys = new TreeMap<>();
        for (String key : scan(Integer.MAX_VALUE)) {
            Object bytes = server.command("MEMORY", "USAGE", key, "SAMPLES", "0");
            if (bytes instanceof Long b) {
                keys.put(key, b);
            }
        }
        return keys;
    }

    /** Up to {@code limit} keys, in SCAN order. */
    List<String> scan(int limit) {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) server.command("SCAN", cursor, "COUNT", "1000");
            cursor = String.valueOf(reply.get(0));
            for (Object k : (List<?>) reply.get(1)) {
                if (keys.size() < limit) {
                    keys.add(String.valueOf(k));
                }
            }
        } while (!cursor.equals("0") && keys.size() < limit);
        return keys;
    }

    @Nullable
    Object command(String... args) {
        return server.command(args);
    }

    long dbSize() {
        return (Long) server.command("DBSIZE");
    }

    void flushAll() {
        server.command("FLUSHALL", "SYNC");
    }

    /** {@code used_memory} less the clients' buffers (see {@link #read()}), read until three reads 200 ms apart agree (at most 4 s). */
    long usedMemory() throws InterruptedException {
        long last = read();
        int same = 0;
        for (int i = 0; i < 20 && same < 2; i++) {
            Thread.sleep(200);
            long now = read();
            same = now == last ? same + 1 : 0;
            last = now;
        }
        return last;
    }

    /** The sum of every key's bytes and the key count, read until two reads 200 ms apart agree or {@code max} passes. */
    Map<String, Long> settledKeys(Duration max) throws InterruptedException {
        long end = System.nanoTime() + max.toNanos();
        Map<String, Long> last = keys();
        while (System.nanoTime() < end) {
            Thread.sleep(200);
            Map<String, Long> now = keys();
            if (now.equals(last)) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /**
     * {@code used_memory} less {@code mem_clients_normal} (Redis 7: the clients' query and output
     * buffers, which swing by tens of kilobytes with whatever a connection last sent or received).
     */
    private long read() {
        String info = String.valueOf(server.command("INFO", "memory"));
        long used = -1;
        long clients = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                used = Long.parseLong(line.substring("used_memory:".length()).trim());
            } else if (line.startsWith("mem_clients_normal:")) {
                clients = Long.parseLong(
                        line.substring("mem_clients_normal:".length()).trim());
            }
        }
        if (used < 0) {
            throw new IllegalStateException("no used_memory in INFO memory");
        }
        return used - clients;
    }
}
