package io.lockkit.jedis.topology;

import io.lockkit.testkit.redis.RedisCommandException;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;

/**
 * What {@link RedisCluster} and {@link RedisSentinelSetup} share: choosing the binary, starting a
 * node on a port of our choosing, bounded waits that say what was still missing, INFO parsing,
 * node logs for error messages, and the Jedis settings of the clients they hand out.
 */
final class NodeSupport {

    /**
     * System property naming the fixture sources of the topologies' default fixture, comma-separated
     * {@link Source} names out of {@code PATH} and {@code EMBEDDED}, e.g. {@code EMBEDDED} to run the
     * topology tests on the embedded Redis 6.2 binary even where {@code redis-server} 7 is on the PATH.
     * Default: {@code PATH,EMBEDDED}.
     */
    static final String SOURCES_PROPERTY = "lockkit.topology.sources";

    static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(2);
    private static final int CLIENT_CONNECTIONS = 17;
    private static final Duration POLL_INTERVAL = Duration.ofMillis(25);
    private static final int PORT_ATTEMPTS = 3;
    private static final int LOG_TAIL_LINES = 25;

    private NodeSupport() {}

    /** The fixture used when the caller gives none: PATH, then the embedded binary, unless {@link #SOURCES_PROPERTY} says otherwise. */
    static RedisFixture defaultFixture() {
        String property = System.getProperty(SOURCES_PROPERTY, "").trim();
        if (property.isEmpty()) {
            return RedisFixture.builder().sources(Source.PATH, Source.EMBEDDED).build();
        }
        Source[] sources;
        try {
            sources = Arrays.stream(property.split(","))
                    .map(s -> Source.valueOf(s.trim().toUpperCase(Locale.ROOT)))
                    .toArray(Source[]::new);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "system property " + SOURCES_PROPERTY + " must list PATH and/or EMBEDDED, was '" + property + "'",
                    e);
        }
        return RedisFixture.builder().sources(sources).build();
    }

    /**
     * Starts a node with {@code fixture.startLocal} on a free port, trying another port when the chosen
     * one was taken in the meantime. The arguments may depend on the port (cluster config file names,
     * a Sentinel config file).
     */
    static RedisServer startNode(RedisFixture fixture, IntFunction<List<String>> argsForPort) {
        for (int attempt = 1; ; attempt++) {
            int port = RedisFixture.freePort();
            try {
                return fixture.startLocal(port, argsForPort.apply(port));
            } catch (IllegalStateException e) {
                String message = String.valueOf(e.getMessage());
                if (attempt >= PORT_ATTEMPTS || !message.contains("Address already in use")) {
                    throw e;
                }
            }
        }
    }

    /** Fails when the server is older than the 6.2 the library supports, naming the binary's source. */
    static void requireSupportedVersion(RedisServer server, String what) {
        int[] v = version(server.version());
        if (v[0] < 6 || (v[0] == 6 && v[1] < 2)) {
            throw new IllegalStateException(what + " needs redis-server 6.2 or later, but " + server
                    + " is " + server.version() + "; pass a RedisFixture with Source.EMBEDDED (Redis 6.2), or set -D"
                    + SOURCES_PROPERTY + "=EMBEDDED");
        }
    }

    /** Major and minor of a {@code redis_version}; {@code {0, 0}} when unreadable. */
    static int[] version(String version) {
        String[] parts = version.split("\\.");
        try {
            return new int[] {Integer.parseInt(parts[0]), parts.length > 1 ? Integer.parseInt(parts[1]) : 0};
        } catch (NumberFormatException e) {
            return new int[] {0, 0};
        }
    }

    /**
     * Where a node writes its log: the fixture starts every process in its own working directory and
     * sends stdout there as {@code redis.log}. Asked with {@code CONFIG GET dir}; Sentinel has no
     * CONFIG, so there the process's working directory is read from {@code /proc} (Linux).
     */
    static Path logFileOf(RedisServer server) {
        try {
            Object reply = server.command("CONFIG", "GET", "dir");
            if (reply instanceof List<?> list && list.size() == 2) {
                return Path.of(String.valueOf(list.get(1)), "redis.log");
            }
        } catch (RuntimeException e) {
            // Sentinel: fall through.
        }
        if (server.pid().isPresent()) {
            try {
                return Files.readSymbolicLink(
                                Path.of("/proc", Long.toString(server.pid().getAsLong()), "cwd"))
                        .resolve("redis.log");
            } catch (IOException | UnsupportedOperationException | SecurityException e) {
                return null;
            }
        }
        return null;
    }

    /** The last lines of each node's log, for error messages. */
    static String logTails(Map<String, Path> logs) {
        StringBuilder sb = new StringBuilder();
        logs.forEach((label, file) -> {
            sb.append("\n  --- ").append(label).append(" log");
            if (file == null) {
                sb.append(": location unknown");
                return;
            }
            sb.append(" (").append(file).append(") ---");
            try {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                for (String line : lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size())) {
                    sb.append("\n    ").append(line);
                }
            } catch (IOException | UncheckedIOException e) {
                sb.append("\n    (unreadable: ").append(e).append(')');
            }
        });
        return sb.toString();
    }

    /**
     * Polls {@code problem} until it returns null (the condition holds). A check that throws counts as
     * "not yet", with the exception as the reason.
     *
     * @throws IllegalStateException when the condition does not hold within {@code timeout}; the
     *     message says what was waited for, what was still missing, and ends with {@code details}
     */
    static void await(String what, Duration timeout, Supplier<String> problem, Supplier<String> details) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        String last;
        while (true) {
            try {
                last = problem.get();
            } catch (RuntimeException e) {
                last = e.toString();
            }
            if (last == null) {
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                break;
            }
            try {
                Thread.sleep(POLL_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting until " + what, e);
            }
        }
        throw new IllegalStateException(
                "timed out after " + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms waiting until "
                        + what + "; still: " + last + details.get());
    }

    /** The fields of an INFO or CLUSTER INFO reply. */
    static Map<String, String> fields(Object reply) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : String.valueOf(reply).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /** A flat key/value list reply (as SENTINEL REPLICAS gives per replica) as a map. */
    static Map<String, String> pairs(Object reply) {
        Map<String, String> map = new LinkedHashMap<>();
        if (reply instanceof List<?> list) {
            for (int i = 0; i + 1 < list.size(); i += 2) {
                map.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
            }
        } else if (reply instanceof Map<?, ?> m) {
            m.forEach((k, v) -> map.put(String.valueOf(k), String.valueOf(v)));
        }
        return map;
    }

    /** Whether the error says the server does not know a (sub)command. */
    static boolean unknownCommand(RedisCommandException e) {
        String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        return m.contains("unknown subcommand") || m.contains("unknown command");
    }

    /** Stops every server, even when some fail to stop; returns the failures (normally none). */
    static List<RuntimeException> stopAll(Collection<RedisServer> servers) {
        List<RuntimeException> failures = new ArrayList<>();
        for (RedisServer server : servers) {
            try {
                server.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        return failures;
    }

    /** The connection settings of the clients the topologies hand out, like the provider's own defaults. */
    static JedisClientConfig clientConfig() {
        int millis = (int) CLIENT_TIMEOUT.toMillis();
        return DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis)
                .socketTimeoutMillis(millis)
                .clientName("lockkit-test")
                .build();
    }

    /** A pool like the provider's own: 17 connections, a bounded wait for one, no JMX registration. */
    static GenericObjectPoolConfig<Connection> poolConfig() {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(CLIENT_CONNECTIONS);
        pool.setMaxIdle(CLIENT_CONNECTIONS);
        pool.setMaxWait(CLIENT_TIMEOUT);
        pool.setJmxEnabled(false);
        return pool;
    }

    /** Labels for log tails: {@code "node 127.0.0.1:30001"}. */
    static String label(String role, RedisServer server) {
        return role + " " + server.host() + ":" + server.port();
    }

    static String joinLines(Collection<String> lines) {
        return lines.stream().collect(Collectors.joining("; "));
    }
}
