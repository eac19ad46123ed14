package io.lockkit.testkit.redis;

import io.lockkit.redis.launcher.Endpoint;
import io.lockkit.redis.launcher.Readiness;
import io.lockkit.redis.launcher.RedisLauncher;
import io.lockkit.redis.launcher.RedisReplyException;
import io.lockkit.redis.launcher.RespConnection;
import io.lockkit.redis.launcher.ServerControl;
import io.lockkit.testkit.FreePorts;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Hands out running Redis servers for tests and demos, from the first source that is available:
 * an explicit URI, a Testcontainers container, {@code redis-server} on the PATH, or the binary
 * bundled in embedded-redis. Immutable and thread-safe; every {@link #start(String...)} call gives an
 * independent server.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisFixture.builder().build().start()) {
 *     redis.command("SET", "k", "v");
 * }
 * }</pre>
 */
// Design notes.
// - Source order is the caller's list, EXPLICIT_URI, TESTCONTAINERS, PATH, EMBEDDED by default. A source
//   that is merely unavailable (no URI set, no Docker engine, no binary) is skipped and the reason kept
//   for the final error; a source that is available but fails to start a server throws at once, so a
//   bad argument is reported against the server that rejected it instead of being hidden by a fallback.
//   The one exception is Testcontainers, whose infrastructure (image pulls, Ryuk) can fail for reasons
//   unrelated to Redis; it falls through to the next source with a warning.
// - Starting servers is lock-redis-launcher's (RedisLauncher: containers, PATH and EMBEDDED binaries,
//   process control), a JUnit-free artifact that Quarkus Dev Services use too; the fixture adds the
//   explicit URI, the environment's narrowing of sources, the JUnit extension and the kit's outage control.
// - No Redis client library: the launcher's few dozen lines of RESP (RespConnection) cover PING, INFO,
//   SHUTDOWN and the generic RedisServer.command(), and work with whichever server version the sources produce.
public final class RedisFixture {

    /** How long a server may take to answer PING after it was started, unless configured otherwise. */
    public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(10);
    /** How long {@link RedisServer#command(String...)} waits to connect and for a reply, unless configured otherwise. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);
    /** The environment variable naming an existing Redis server, e.g. {@code redis://127.0.0.1:6379}. */
    public static final String URI_ENVIRONMENT_VARIABLE = "LOCKKIT_REDIS_URI";
    /** The system property naming an existing Redis server; consulted when the environment variable is unset. */
    public static final String URI_SYSTEM_PROPERTY = "lockkit.redis.uri";
    /**
     * The environment variable that narrows the default sources, a comma-separated list of
     * {@link Source} names in the order to try them: {@code LOCKKIT_REDIS_SOURCES=embedded} runs
     * every test on the bundled Redis 6.2, as on a machine without {@code redis-server}.
     */
    public static final String SOURCES_ENVIRONMENT_VARIABLE = "LOCKKIT_REDIS_SOURCES";
    /** The system property that narrows the default sources; consulted when the environment variable is unset. */
    public static final String SOURCES_SYSTEM_PROPERTY = "lockkit.redis.sources";
    /** The image used for {@link Source#TESTCONTAINERS} unless configured otherwise. */
    public static final String DEFAULT_DOCKER_IMAGE = RedisLauncher.DEFAULT_DOCKER_IMAGE;

    private static final System.Logger LOG = System.getLogger(RedisFixture.class.getName());

    private final List<Source> sources;
    private final @Nullable String explicitUri;
    private final @Nullable String explicitUriOrigin;
    private final @Nullable Endpoint explicitEndpoint;
    private final Duration startupTimeout;
    private final Duration commandTimeout;
    private final boolean announce;
    private final RedisLauncher launcher;
    /** The launcher over the fixture's local sources (PATH, EMBEDDED) in their order; null when it has none. */
    private final @Nullable RedisLauncher localLauncher;

    private RedisFixture(
            Builder builder,
            @Nullable String explicitUri,
            @Nullable String explicitUriOrigin,
            @Nullable Endpoint explicitEndpoint) {
        this.sources = builder.sources;
        this.startupTimeout = builder.startupTimeout;
        this.commandTimeout = builder.commandTimeout;
        this.announce = builder.announce;
        this.explicitUri = explicitUri;
        this.explicitUriOrigin = explicitUriOrigin;
        this.explicitEndpoint = explicitEndpoint;
        // The launcher tries one source at a time (launchFrom); the fixture keeps the order.
        this.launcher = builder.launcher.sources(RedisLauncher.Source.values()).build();
        RedisLauncher.Source[] local = sources.stream()
                .filter(source -> source == Source.PATH || source == Source.EMBEDDED)
                .map(RedisFixture::launched)
                .toArray(RedisLauncher.Source[]::new);
        this.localLauncher =
                local.length == 0 ? null : builder.launcher.sources(local).build();
    }

    /** A builder with every source enabled in the default order and the default timeouts. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Hands out a server from the first available source, waiting until it answers PING. Extra
     * arguments go to {@code redis-server} after the fixture's defaults, so they may override them
     * (e.g. {@code "--cluster-enabled", "yes"}); file paths in them refer to the container's file
     * system when the source is {@link Source#TESTCONTAINERS}.
     *
     * @throws IllegalArgumentException when extra arguments are given but the chosen source is an
     *     explicit URI, which the fixture cannot configure
     * @throws IllegalStateException when no source is available (the message says why for each) or
     *     the server does not start (the message holds the end of its log)
     */
    public RedisServer start(String... extraArgs) {
        List<String> args = copyArgs(extraArgs, "extraArgs");
        List<String> unavailable = new ArrayList<>();
        for (Source source : sources) {
            if (source == Source.EXPLICIT_URI) {
                if (explicitEndpoint != null) {
                    if (!args.isEmpty()) {
                        throw new IllegalArgumentException("extra server arguments " + args
                                + " cannot be applied to the Redis server given by " + explicitUriOrigin + " ("
                                + explicitEndpoint.redactedUri() + "); leave Source.EXPLICIT_URI out of"
                                + " RedisFixture.Builder.sources(...) to have the fixture start its own server");
                    }
                    return connectExplicit();
                }
                unavailable.add("EXPLICIT_URI: neither " + URI_ENVIRONMENT_VARIABLE + " nor " + URI_SYSTEM_PROPERTY
                        + " is set");
            } else {
                Optional<ServerControl> started = launcher.launchFrom(launched(source), args, unavailable);
                if (started.isPresent()) {
                    return handOut(source, started.get(), null, unavailable);
                }
            }
            LOG.log(System.Logger.Level.DEBUG, "Redis source skipped: {0}", unavailable.get(unavailable.size() - 1));
        }
        throw new IllegalStateException(
                "no Redis server available from sources " + sources + ":\n  " + String.join("\n  ", unavailable));
    }

    /** The launcher's source for one of the fixture's own (every source but {@link Source#EXPLICIT_URI}). */
    private static RedisLauncher.Source launched(Source source) {
        return RedisLauncher.Source.valueOf(source.name());
    }

    /**
     * Starts a local {@code redis-server} (from {@link Source#PATH} or {@link Source#EMBEDDED},
     * whichever comes first in the configured sources) on the given loopback port. Leading arguments
     * that are not options (a config file, as Sentinel needs) are placed before the fixture's
     * defaults, the rest after them, e.g. {@code startLocal(port, List.of(conf.toString(), "--sentinel"))}.
     *
     * @throws IllegalArgumentException when the port is outside 1..65535
     * @throws IllegalStateException when no binary is available or the server does not start (the
     *     message holds the end of its log)
     */
    public RedisServer startLocal(int port, List<String> args) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be in 1..65535: " + port);
        }
        List<String> copy = copyArgs(Objects.requireNonNull(args, "args").toArray(new String[0]), "args");
        RedisLauncher.Launch launch = localLauncher().launchLocal(port, copy);
        return handOut(Source.valueOf(launch.source().name()), launch.control(), null, launch.passedOver());
    }

    /**
     * The {@code redis-server} executable the fixture would launch: from the search path or the
     * embedded binary (copied to a temporary file once per JVM), whichever comes first in the
     * configured sources. For callers that run cluster or Sentinel nodes themselves.
     *
     * @throws IllegalStateException when neither {@link Source#PATH} nor {@link Source#EMBEDDED} yields a binary
     */
    public Path redisServerBinary() {
        return localLauncher().redisServerBinary();
    }

    private RedisLauncher localLauncher() {
        if (localLauncher == null) {
            throw new IllegalStateException("no redis-server binary available from sources " + sources
                    + " (only PATH and EMBEDDED provide binaries)");
        }
        return localLauncher;
    }

    /**
     * A loopback port that is free right now, outside the ephemeral port range, with port + 10000
     * free as well (see {@link FreePorts#freePort()}, which this is).
     *
     * @throws IllegalStateException when no such port is found after many tries
     */
    public static int freePort() {
        return FreePorts.freePort();
    }

    private RedisServer connectExplicit() {
        Endpoint endpoint = Objects.requireNonNull(explicitEndpoint, "explicitEndpoint"); // set with the URI
        ServerControl control = ServerControl.unowned(endpoint);
        if (!Readiness.await(endpoint, startupTimeout, connection -> true, () -> true)) {
            String reason;
            try (RespConnection connection = RespConnection.open(endpoint, commandTimeout)) {
                reason = "PING answered " + connection.call("PING");
            } catch (IOException | RedisReplyException e) {
                reason = e.toString();
            }
            throw new IllegalStateException("the Redis server given by " + explicitUriOrigin + " ("
                    + endpoint.redactedUri() + ") did not answer PING within " + startupTimeout.toMillis()
                    + " ms: " + reason);
        }
        return handOut(Source.EXPLICIT_URI, control, explicitUri, List.of());
    }

    private RedisServer handOut(Source source, ServerControl control, @Nullable String uri, List<String> passedOver) {
        RedisServer server;
        try {
            server = new RedisServer(
                    source,
                    control,
                    uri != null ? uri : control.endpoint().redactedUri(),
                    commandTimeout,
                    startupTimeout,
                    passedOver);
        } catch (RuntimeException e) {
            control.stop();
            throw e;
        }
        LOG.log(
                announce ? System.Logger.Level.INFO : System.Logger.Level.DEBUG,
                "Redis for tests from {0}: {1} (redis {2}, {3})",
                source,
                control.endpoint().redactedUri(),
                server.version(),
                control.describe());
        return server;
    }

    private static List<String> copyArgs(String[] args, String name) {
        Objects.requireNonNull(args, name);
        for (String arg : args) {
            Objects.requireNonNull(arg, () -> name + " must not contain null");
        }
        return List.of(args);
    }

    /**
     * Options for a {@link RedisFixture}; each setter validates its argument. Not thread-safe; the
     * built fixture is.
     */
    public static final class Builder {

        private List<Source> sources = Sources.defaults();
        /** Whether {@link #sources} is still the default (perhaps narrowed by the environment). */
        private boolean defaultSources = true;

        /** Where servers are started from: search path, image, port, startup timeout (validated there). */
        private final RedisLauncher.Builder launcher = RedisLauncher.builder().freePorts(FreePorts::freePort);

        private @Nullable String explicitUri;
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private boolean announce = true;

        private Builder() {}

        /**
         * The loopback port a started server listens on (for a container: its published port); 0, the
         * default, takes a free one. A port in use fails {@link RedisFixture#start(String...)}.
         *
         * @throws IllegalArgumentException when outside 0..65535
         */
        public Builder port(int port) {
            launcher.port(port);
            return this;
        }

        /**
         * Whether handing out a server logs an INFO line naming it (default); a caller that logs its
         * own line, as Quarkus Dev Services do, turns it off, and the line is DEBUG.
         */
        public Builder announce(boolean announce) {
            this.announce = announce;
            return this;
        }

        /**
         * The sources to try, in this order; leave {@link Source#EXPLICIT_URI} out to ignore
         * {@code LOCKKIT_REDIS_URI}. Default: all, in declaration order.
         *
         * @throws IllegalArgumentException when empty or when a source repeats
         */
        public Builder sources(Source... sources) {
            Objects.requireNonNull(sources, "sources");
            if (sources.length == 0) {
                throw new IllegalArgumentException("sources must name at least one source");
            }
            Set<Source> seen = EnumSet.noneOf(Source.class);
            for (Source source : sources) {
                if (!seen.add(Objects.requireNonNull(source, "sources must not contain null"))) {
                    throw new IllegalArgumentException("sources names " + source + " twice");
                }
            }
            this.sources = List.of(sources);
            this.defaultSources = false;
            return this;
        }

        /**
         * The directories searched for {@code redis-server}, separated like {@code PATH}; an empty
         * string finds nothing. Default: the {@code PATH} environment variable.
         */
        public Builder searchPath(String searchPath) {
            launcher.searchPath(searchPath);
            return this;
        }

        /**
         * A Redis server to use as is, {@code redis://[[user]:password@]host[:port][/database]};
         * overrides {@code LOCKKIT_REDIS_URI} and {@code lockkit.redis.uri}, and is used even when
         * {@code LOCKKIT_REDIS_SOURCES} leaves {@link Source#EXPLICIT_URI} out.
         *
         * @throws IllegalArgumentException when it is not such a URI (TLS {@code rediss://} is not supported)
         */
        public Builder explicitUri(String uri) {
            Objects.requireNonNull(uri, "uri");
            Endpoint.parse(uri, "uri");
            this.explicitUri = uri.trim();
            if (defaultSources && !sources.contains(Source.EXPLICIT_URI)) {
                // Sources narrowed by the environment still serve a URI given in code.
                List<Source> withExplicit = new ArrayList<>(List.of(Source.EXPLICIT_URI));
                withExplicit.addAll(sources);
                this.sources = List.copyOf(withExplicit);
            }
            return this;
        }

        /**
         * How long a started server may take to answer PING. Default {@link RedisFixture#DEFAULT_STARTUP_TIMEOUT}.
         *
         * @throws IllegalArgumentException when not positive
         */
        public Builder startupTimeout(Duration startupTimeout) {
            launcher.startupTimeout(startupTimeout);
            this.startupTimeout = startupTimeout;
            return this;
        }

        /**
         * How long {@link RedisServer#command(String...)} waits to connect and for a reply. Default
         * {@link RedisFixture#DEFAULT_COMMAND_TIMEOUT}.
         *
         * @throws IllegalArgumentException when not positive
         */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = positive(commandTimeout, "commandTimeout");
            return this;
        }

        /**
         * The image for {@link Source#TESTCONTAINERS}; it must run {@code redis-server} on port 6379.
         * Default {@link RedisFixture#DEFAULT_DOCKER_IMAGE}.
         *
         * @throws IllegalArgumentException when blank
         */
        public Builder dockerImage(String dockerImage) {
            launcher.dockerImage(dockerImage);
            return this;
        }

        /**
         * Builds the fixture, reading {@code LOCKKIT_REDIS_URI} and {@code lockkit.redis.uri} now
         * unless an explicit URI was set or {@link Source#EXPLICIT_URI} is left out.
         *
         * @throws IllegalArgumentException when the environment variable or system property holds a malformed URI
         */
        public RedisFixture build() {
            if (!sources.contains(Source.EXPLICIT_URI)) {
                return new RedisFixture(this, null, null, null);
            }
            String uri = explicitUri;
            String origin = "RedisFixture.Builder.explicitUri";
            if (uri == null) {
                uri = System.getenv(URI_ENVIRONMENT_VARIABLE);
                origin = "environment variable " + URI_ENVIRONMENT_VARIABLE;
            }
            if (uri == null || uri.isBlank()) {
                uri = System.getProperty(URI_SYSTEM_PROPERTY);
                origin = "system property " + URI_SYSTEM_PROPERTY;
            }
            if (uri == null || uri.isBlank()) {
                return new RedisFixture(this, null, null, null);
            }
            uri = uri.trim();
            return new RedisFixture(this, uri, origin, Endpoint.parse(uri, origin));
        }

        private static Duration positive(Duration value, String name) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + value);
            }
            return value;
        }
    }
}
