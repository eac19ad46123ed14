package io.lockkit.testkit.jdbc;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A {@code mariadbd} process of the fixture's own: a data directory made by
 * {@code mariadb-install-db}, a fixed free loopback port and a socket in that directory, so that
 * {@link #stop()} and {@link #start()} bring back the same server with the same data at the same
 * URL. Only {@link MariaDbFixture} creates it. Thread-safe (calls are serialized).
 */
final class MariaDbProcess {

    /** Where Debian's mariadb-server (and other distributions) put the binaries, besides the PATH. */
    private static final List<String> SEARCH = List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin");

    private final Path server;
    private final Path installer;
    private final int port;
    private final Path dataDirectory;
    private final Duration startupTimeout;
    private @Nullable Process process;
    private boolean closed;

    private MariaDbProcess(Path server, Path installer, int port, Path dataDirectory, Duration startupTimeout) {
        this.server = server;
        this.installer = installer;
        this.port = port;
        this.dataDirectory = dataDirectory;
        this.startupTimeout = startupTimeout;
    }

    /** The server and installer binaries, when both are found on the PATH or in the usual folders. */
    static Optional<Path[]> binaries() {
        Optional<Path> server = find("mariadbd").or(() -> find("mysqld"));
        Optional<Path> installer = find("mariadb-install-db").or(() -> find("mysql_install_db"));
        return server.isPresent() && installer.isPresent()
                ? Optional.of(new Path[] {server.get(), installer.get()})
                : Optional.empty();
    }

    private static Optional<Path> find(String name) {
        List<String> folders = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            folders.addAll(List.of(path.split(File.pathSeparator)));
        }
        folders.addAll(SEARCH);
        for (String folder : folders) {
            Path p = Path.of(folder, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Installs a new data directory in a temporary folder and starts the server on a free port. */
    static MariaDbProcess start(Path server, Path installer, Duration startupTimeout) {
        Path dir;
        try {
            dir = Files.createTempDirectory("lockkit-mariadb-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for MariaDB", e);
        }
        MariaDbProcess p =
                new MariaDbProcess(server, installer, io.lockkit.testkit.FreePorts.freePort(), dir, startupTimeout);
        try {
            p.install();
            p.start();
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
        return p;
    }

    private void install() {
        try {
            Files.createDirectories(temporaryFiles());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary folder for MariaDB", e);
        }
        List<String> command = new ArrayList<>(List.of(
                installer.toString(),
                "--no-defaults",
                "--datadir=" + dataDirectory.resolve("data"),
                // Its own temporary folder: bootstrap's temporary tables in a shared /tmp collide
                // between installers running at once ("Unknown table 'mysql.tmp_user_sys'").
                "--tmpdir=" + temporaryFiles(),
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve"));
        if (root()) {
            command.add("--user=root");
        }
        run(command, "installing a MariaDB data directory");
    }

    private Path temporaryFiles() {
        return dataDirectory.resolve("tmp");
    }

    String jdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/?user=root";
    }

    int port() {
        return port;
    }

    synchronized OptionalLong pid() {
        Process p = process;
        return p != null && p.isAlive() ? OptionalLong.of(p.pid()) : OptionalLong.empty();
    }

    /** Starts the server (if it is not running) and returns once it accepts connections. */
    synchronized void start() {
        if (closed) {
            throw new IllegalStateException("the MariaDB on port " + port + " was closed");
        }
        if (process != null && process.isAlive()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of(
                server.toString(),
                "--no-defaults",
                "--datadir=" + dataDirectory.resolve("data"),
                "--tmpdir=" + temporaryFiles(),
                "--port=" + port,
                "--socket=" + dataDirectory.resolve("mariadb.sock"),
                "--pid-file=" + dataDirectory.resolve("mariadb.pid"),
                "--bind-address=127.0.0.1",
                "--skip-name-resolve",
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_general_ci",
                "--max-connections=500",
                // A test database: speed over durability across an OS crash (as embedded PostgreSQL's fsync=off).
                "--innodb-buffer-pool-size=64M",
                "--innodb-flush-log-at-trx-commit=2",
                "--innodb-doublewrite=0",
                "--performance-schema=OFF"));
        if (root()) {
            command.add("--user=root");
        }
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dataDirectory.resolve("mariadb.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + server, e);
        }
        awaitConnection();
    }

    private void awaitConnection() {
        long end = System.nanoTime() + startupTimeout.toNanos();
        SQLException last = null;
        while (System.nanoTime() - end < 0) {
            Process p = process;
            if (p == null || !p.isAlive()) {
                throw new IllegalStateException(
                        "mariadbd exited while starting:" + tail(dataDirectory.resolve("mariadb.log")));
            }
            try (Connection c = DriverManager.getConnection(jdbcUrl())) {
                c.createStatement().execute("SELECT 1");
                return;
            } catch (SQLException e) {
                last = e;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
        throw new IllegalStateException(
                "MariaDB on port " + port + " did not accept a connection within " + startupTimeout.toMillis() + " ms: "
                        + (last == null ? "no attempt" : last.getMessage()),
                last);
    }

    /** Shuts the server down (SIGTERM: a clean shutdown, data kept); returns once it has exited. */
    synchronized void stop() {
        Process p = process;
        process = null;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the server and removes its files; idempotent. */
    synchronized void close() {
        if (!closed) {
            closed = true;
            DataDirectories.stopThenDelete(this::stop, dataDirectory, "MariaDB");
        }
    }

    String describe() {
        return server + ", data in " + dataDirectory;
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    private void run(List<String> command, String what) {
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dataDirectory.resolve("install.log").toFile())
                    .start();
            if (!p.waitFor(startupTimeout.toMillis() * 2, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(what + " did not finish in time: " + command);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        what + " failed (exit " + p.exitValue() + "):" + tail(dataDirectory.resolve("install.log")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(what + " failed: " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + " was interrupted", e);
        }
    }

    /** The last lines of a log, for an exception's message: the data directory is deleted on failure. */
    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            return "\n  " + String.join("\n  ", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return " (its log " + log + " could not be read: " + e.getMessage() + ")";
        }
    }
}
