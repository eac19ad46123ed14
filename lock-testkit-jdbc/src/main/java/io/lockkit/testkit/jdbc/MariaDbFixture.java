package io.lockkit.testkit.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Hands out running MariaDB servers for tests, from the first source available: an explicit JDBC
 * URL ({@code LOCKKIT_MARIADB_URL} or {@code -Dlockkit.mariadb.url}), or a {@code mariadbd} of the
 * machine (Debian's {@code mariadb-server} package: {@code mariadbd} and {@code mariadb-install-db} on
 * the PATH or in {@code /usr/sbin}, {@code /usr/bin}), started on a free loopback port with a data
 * directory of its own, as the Redis fixture does with {@code redis-server}. Tests skip visibly when
 * neither is there ({@link #unavailable()}). Thread-safe.
 *
 * <pre>{@code
 * assumeTrue(MariaDbFixture.unavailable().isEmpty(), () -> MariaDbFixture.unavailable().get());
 * MariaDbServer db = MariaDbFixture.shared();
 * String url = db.createDatabase("my_test");
 * }</pre>
 */
// Design notes: installing a data directory takes seconds (more on a busy machine), so test classes
// share one server per JVM (shared(), stopped when the JVM exits) and each takes a database of its
// own; a class that restarts the server restarts it for the classes after it too, which run after it
// (surefire runs a JVM's classes one at a time). start() gives an independent server, e.g. for a
// benchmark. The MariaDB JDBC driver (org.mariadb.jdbc:mariadb-java-client) is an optional dependency
// of the kit, as PostgreSQL's is.
public final class MariaDbFixture {

    /** The environment variable naming a server somebody else runs, e.g. {@code jdbc:mariadb://host:3306/?user=u&password=p}. */
    public static final String URL_ENVIRONMENT_VARIABLE = "LOCKKIT_MARIADB_URL";
    /** The system property naming such a server; consulted when the environment variable is unset. */
    public static final String URL_SYSTEM_PROPERTY = "lockkit.mariadb.url";
    /** How long a server may take to install and accept connections: 90 s (a busy CI machine). */
    public static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

    private static final System.Logger LOG = System.getLogger(MariaDbFixture.class.getName());
    private static @Nullable MariaDbServer shared;

    private MariaDbFixture() {}

    /** Why no MariaDB can be had here (to skip with), or empty when one can. */
    public static Optional<String> unavailable() {
        if (explicitUrl() != null) {
            return Optional.empty();
        }
        if (!driverPresent()) {
            return Optional.of(
                    "the MariaDB JDBC driver (org.mariadb.jdbc:mariadb-java-client) is not on the class path");
        }
        if (MariaDbProcess.binaries().isEmpty()) {
            return Optional.of("no MariaDB: neither " + URL_ENVIRONMENT_VARIABLE + " nor " + URL_SYSTEM_PROPERTY
                    + " is set, and no mariadbd and mariadb-install-db were found (apt-get install mariadb-server)");
        }
        return Optional.empty();
    }

    /**
     * This JVM's shared server, started by the first call and stopped when the JVM exits.
     *
     * @throws IllegalStateException when none is {@linkplain #unavailable() available} or it does not start
     */
    public static synchronized MariaDbServer shared() {
        if (shared == null) {
            MariaDbServer s = start();
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "lockkit-mariadb-shutdown"));
            shared = s;
        }
        return shared;
    }

    /**
     * A server of the caller's own (closing it stops it), or the explicit URL's.
     *
     * @throws IllegalStateException when none is {@linkplain #unavailable() available} or it does not start
     */
    public static MariaDbServer start() {
        String url = explicitUrl();
        if (url != null) {
            return new MariaDbServer(null, url);
        }
        Optional<String> reason = unavailable();
        if (reason.isPresent()) {
            throw new IllegalStateException(reason.get());
        }
        Path[] binaries = MariaDbProcess.binaries().orElseThrow();
        long started = System.nanoTime();
        MariaDbProcess process = MariaDbProcess.start(binaries[0], binaries[1], STARTUP_TIMEOUT);
        MariaDbServer server;
        try {
            server = new MariaDbServer(process, process.jdbcUrl());
        } catch (RuntimeException e) {
            process.close();
            throw e;
        }
        LOG.log(
                System.Logger.Level.INFO,
                "MariaDB for tests: {0} (installed and started in {1} ms)",
                server,
                (System.nanoTime() - started) / 1_000_000);
        return server;
    }

    private static @Nullable String explicitUrl() {
        String url = System.getenv(URL_ENVIRONMENT_VARIABLE);
        if (url == null || url.isBlank()) {
            url = System.getProperty(URL_SYSTEM_PROPERTY);
        }
        return url == null || url.isBlank() ? null : url.trim();
    }

    private static boolean driverPresent() {
        try {
            Class.forName("org.mariadb.jdbc.Driver", false, MariaDbFixture.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
