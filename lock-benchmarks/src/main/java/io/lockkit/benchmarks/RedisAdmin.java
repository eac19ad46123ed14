package io.lockkit.benchmarks;

import io.lockkit.testkit.redis.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The harness's own view of a benchmark Redis: statistics, connected clients, CPU time. Commands
 * go through the fixture's tiny client, a fresh connection per call, never through a library under
 * test.
 */
final class RedisAdmin {

    /** Commands the harness itself sends (ECHO: the MONITOR window's markers); never counted. */
    private static final Set<String> HARNESS = Set.of("info", "config", "monitor", "client|list", "flushall", "echo");

    private final RedisServer server;

    RedisAdmin(RedisServer server) {
        this.server = server;
    }

    RedisServer server() {
        return server;
    }

    String uri() {
        return server.uri();
    }

    void resetStats() {
        server.command("CONFIG", "RESETSTAT");
    }

    void flushAll() {
        server.command("FLUSHALL");
    }

    String info(String section) {
        return String.valueOf(server.command("INFO", section));
    }

    /** Calls per command name ({@code cmdstat_<name>}, subcommands as {@code client|setname}) since the last reset. */
    Map<String, Long> commandCalls() {
        return commandStat("calls=");
    }

    /** Microseconds Redis spent per command name since the last reset (a script's time includes its calls). */
    Map<String, Long> commandMicros() {
        return commandStat("usec=");
    }

    private Map<String, Long> commandStat(String key) {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            String name = line.substring("cmdstat_".length(), colon);
            for (String field : line.substring(colon + 1).split(",")) {
                if (field.startsWith(key)) {
                    calls.put(name, Long.parseLong(field.substring(key.length())));
                }
            }
        }
        return calls;
    }

    /** CPU seconds the server has used (user + system, all its threads). */
    double cpuSeconds() {
        double total = 0;
        for (String line : info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                total +=
                        Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return total;
    }

    /** Connected clients as {@code CLIENT LIST} fields; {@code type} null for all, or e.g. {@code "pubsub"}. */
    List<Map<String, String>> clients(String type) {
        Object reply = type == null ? server.command("CLIENT", "LIST") : server.command("CLIENT", "LIST", "TYPE", type);
        List<Map<String, String>> clients = new ArrayList<>();
        for (String line : String.valueOf(reply).split("\r?\n")) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, String> fields = new TreeMap<>();
            for (String field : line.trim().split(" ")) {
                int eq = field.indexOf('=');
                if (eq > 0) {
                    fields.put(field.substring(0, eq), field.substring(eq + 1));
                }
            }
            clients.add(fields);
        }
        return clients;
    }

    /** Connections whose name starts with {@code prefix}. */
    int connections(String prefix, String type) {
        int n = 0;
        for (Map<String, String> c : clients(type)) {
            if (c.getOrDefault("name", "").startsWith(prefix)) {
                n++;
            }
        }
        return n;
    }

    /**
     * The commands Redis executed, harness commands left out: client commands and, as Redis 7
     * counts them in {@code commandstats} too, the commands scripts ran (an HGET inside a script
     * adds to {@code cmdstat_hget}). Which are which takes MONITOR ({@link MonitorCounter}).
     */
    static Map<String, Long> executed(Map<String, Long> calls) {
        Map<String, Long> executed = new TreeMap<>();
        calls.forEach((name, n) -> {
            if (!isHarness(name)) {
                executed.put(name, n);
            }
        });
        return executed;
    }

    static boolean isHarness(String command) {
        String c = command.toLowerCase(java.util.Locale.ROOT);
        return HARNESS.contains(c) || c.startsWith("config|");
    }

    static long sum(Map<String, Long> calls) {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }
}
