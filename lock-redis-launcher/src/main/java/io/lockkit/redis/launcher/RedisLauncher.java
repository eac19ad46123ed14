package io.lockkit.redis.launcher;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Starts Redis servers on this machine from the first source that yields one: a container
 * (Testcontainers, when it is on the class path and a container runtime answers), {@code redis-server}
 * on the search path, or the Redis 6.2 binary bundled in embedded-redis. Immutable and thread-safe;
 * every launch starts an independent server, stopped through its {@link ServerControl}.
 *
 * <pre>{@code
 * RedisLauncher.Launch launch = RedisLauncher.builder().build().launch(List.of());
 * try {
 *     String uri = launch.control().endpoint().redactedUri();
 * } finally {
 *     launch.control().stop();
 * }
 * }</pre>
 */
// Design notes.
// - The JUnit-free core of lockkit's Redis test fixture (lock-testkit-redis), published on its own so
//   Quarkus Dev Services start the same servers without putting a test framework on an application's
//   build class path. The fixture adds an explicit URI, its JUnit extension and the kit's outage control.
// - A source that is merely unavailable (no Docker engine, no binary) is skipped and the reason kept
//   for the final error; a source that is available but fails to start a server throws at once, so a
//   bad argument is reported against the server that rejected it. The exception is a container, whose
//   infrastructure (image pulls, Ryuk) can fail for reasons unrelated to Redis: it falls through to the
//   next source with a warning.
// - PATH and EMBEDDED are the same mechanism with a different binary (ProcessServerControl), so both
//   are started, awaited, logged, restarted and stopped identically.
public final class RedisLauncher {

    /** Where a launched server comes from, tried in the order given to {@link Builder#sources(Source...)}. */
    public enum Source {
        /** A container of {@link Builder#dockerImage(String)}, through Testcontainers when a container runtime answers. */
        TESTCONTAINERS,
        /** A {@code redis-server} executable on the search path ({@code PATH} by default). */
        PATH,
        /** The {@code redis-server} binary bundled in {@code com.github.codemonstur:embedded-redis} (Redis 6.2). */
        EMBEDDED
    }

    /**
     * A launched server, where it came from, and why the sources tried before it gave none.
     *
     * @param source the source that started it
     * @param control its control: endpoint, pid, restart and stop
     * @param passedOver the earlier sources' reasons, e.g. {@code "TESTCONTAINERS: no container runtime found"}
     */
    public record Launch(Source source, ServerControl control, List<String> passedOver) {

        /** Copies {@code passedOver}. */
        public Launch {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(control, "control");
            passedOver = List.copyOf(passedOver);
        }
    }

    /** How long a server may take to answer PING after it was started, unless configured otherwise. */
    public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(10);
    /** The image used for {@link Source#TESTCONTAINERS} unless configured otherwise. */
    public static final String DEFAULT_DOCKER_IMAGE = "redis:7-alpine";

    private static final System.Logger LOG = System.getLogger(RedisLauncher.class.getName());
    private static final Duration VERSION_TIMEOUT = Duration.ofSeconds(5);

    private final List<Source> sources;
    private final String searchPath;
    private final Duration startupTimeout;
    private final String dockerImage;
    private final int port;
    private final IntSupplier freePorts;

    private RedisLauncher(Builder builder) {
        this.sources = builder.sources;
        this.searchPath = builder.searchPath;
        this.startupTimeout = builder.startupTimeout;
        this.dockerImage = builder.dockerImage;
        this.port = builder.port;
        this.freePorts = builder.freePorts;
    }

    /** A builder with every source in declaration order, the {@code PATH} and the default timeout. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a server from the first source that yields one, waiting until it answers PING. Extra
     * arguments go to {@code redis-server} after the launcher's defaults, so they may override them.
     *
     * @throws IllegalStateException when no source yields a server (the message says why for each) or
     *     the server does not start (the message holds the end of its log)
     */
    public Launch launch(List<String> args) {
        List<String> unavailable = new ArrayList<>();
        for (Source source : sources) {
            Optional<ServerControl> control = launchFrom(source, args, unavailable);
            if (control.isPresent()) {
                return new Launch(source, control.get(), unavailable);
            }
        }
        throw new IllegalStateException(
                "no Redis server available from sources " + sources + ":\n  " + String.join("\n  ", unavailable));
    }

    /**
     * Starts a server from {@code source}, or returns empty with the reason added to {@code unavailable}
     * (prefixed with the source's name) when that source has none to give.
     *
     * @throws IllegalStateException when the source is available but its server does not start
     */
    public Optional<ServerControl> launchFrom(Source source, List<String> args, List<String> unavailable) {
        List<String> copy = List.copyOf(args);
        if (source == Source.TESTCONTAINERS) {
            return container(copy, unavailable);
        }
        Optional<Path> binary = RedisBinaries.of(source, searchPath, unavailable);
        return binary.map(b -> port == 0
                ? ProcessServerControl.startOnFreePort(b, copy, startupTimeout, freePorts)
                : ProcessServerControl.start(b, port, copy, startupTimeout));
    }

    private Optional<ServerControl> container(List<String> args, List<String> unavailable) {
        try {
            String missing = ContainerRuntimeProbe.whyNoContainer();
            if (missing != null) {
                unavailable.add(Source.TESTCONTAINERS + ": " + missing);
                return Optional.empty();
            }
            return Optional.of(TestcontainersSupport.start(dockerImage, args, startupTimeout, port, freePorts));
        } catch (RuntimeException | LinkageError e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "Testcontainers could not start " + dockerImage + "; trying the next source",
                    e);
            unavailable.add(Source.TESTCONTAINERS + ": failed: " + e);
            return Optional.empty();
        }
    }

    /**
     * Starts a local {@code redis-server} (from {@link Source#PATH} or {@link Source#EMBEDDED}, whichever
     * comes first in the sources) on the given loopback port. Leading arguments that are not options (a
     * config file, as Sentinel needs) are placed before the launcher's defaults, the rest after them.
     *
     * @throws IllegalArgumentException when the port is outside 1..65535
     * @throws IllegalStateException when no binary is available or the server does not start
     */
    public Launch launchLocal(int port, List<String> args) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be in 1..65535: " + port);
        }
        List<String> copy = List.copyOf(args);
        List<String> unavailable = new ArrayList<>();
        for (Source source : sources) {
            Optional<Path> binary = RedisBinaries.of(source, searchPath, unavailable);
            if (binary.isPresent()) {
                return new Launch(
                        source, ProcessServerControl.start(binary.get(), port, copy, startupTimeout), unavailable);
            }
        }
        throw RedisBinaries.none(sources, unavailable);
    }

    /**
     * The {@code redis-server} executable the launcher would run: from the search path or the embedded
     * binary (copied to a temporary file once per JVM), whichever comes first in the sources.
     *
     * @throws IllegalStateException when neither {@link Source#PATH} nor {@link Source#EMBEDDED} yields one
     */
    public Path redisServerBinary() {
        List<String> unavailable = new ArrayList<>();
        for (Source source : sources) {
            Optional<Path> binary = RedisBinaries.of(source, searchPath, unavailable);
            if (binary.isPresent()) {
                return binary.get();
            }
        }
        throw RedisBinaries.none(sources, unavailable);
    }

    /** The first executable {@code redis-server} in the directories of {@code searchPath}, if any. */
    public static Optional<Path> onPath(String searchPath) {
        return RedisBinaries.onPath(Objects.requireNonNull(searchPath, "searchPath"));
    }

    /**
     * Why no container can be started here, or null when one may be: Testcontainers is on the class
     * path and a container runtime answers (asked quietly first, then Testcontainers itself).
     */
    public static @Nullable String whyNoContainer() {
        return ContainerRuntimeProbe.whyNoContainer();
    }

    /**
     * The {@code redis_version} the server at {@code endpoint} reports in {@code INFO server}, or
     * {@code "unknown"} when it answers none.
     *
     * @throws IOException when the server cannot be reached or does not answer within five seconds
     */
    public static String version(Endpoint endpoint) throws IOException {
        try (RespConnection connection = RespConnection.open(endpoint, VERSION_TIMEOUT)) {
            return Objects.requireNonNullElse(
                    Readiness.infoField(connection.call("INFO", "server"), "redis_version"), "unknown");
        }
    }

    /** A loopback port free right now, chosen by the operating system. */
    static int anyFreePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free loopback port: " + e.getMessage(), e);
        }
    }

    /** Options for a {@link RedisLauncher}; each setter validates its argument. Not thread-safe; the launcher is. */
    public static final class Builder {

        private List<Source> sources = List.of(Source.values());
        private String searchPath = Objects.requireNonNullElse(System.getenv("PATH"), "");
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private String dockerImage = DEFAULT_DOCKER_IMAGE;
        private int port;
        private IntSupplier freePorts = RedisLauncher::anyFreePort;

        private Builder() {}

        /**
         * The sources to try, in order, each once.
         *
         * @throws IllegalArgumentException when none is given
         */
        public Builder sources(Source... sources) {
            Objects.requireNonNull(sources, "sources");
            if (sources.length == 0) {
                throw new IllegalArgumentException("sources must name at least one source");
            }
            this.sources = List.of(sources).stream().distinct().toList();
            return this;
        }

        /** The directories searched for {@code redis-server}, separated as in {@code PATH}. */
        public Builder searchPath(String searchPath) {
            this.searchPath = Objects.requireNonNull(searchPath, "searchPath");
            return this;
        }

        /**
         * How long a started server may take to answer PING.
         *
         * @throws IllegalArgumentException when not positive
         */
        public Builder startupTimeout(Duration startupTimeout) {
            Objects.requireNonNull(startupTimeout, "startupTimeout");
            if (startupTimeout.isNegative() || startupTimeout.isZero()) {
                throw new IllegalArgumentException("startupTimeout must be positive: " + startupTimeout);
            }
            this.startupTimeout = startupTimeout;
            return this;
        }

        /**
         * The image of {@link Source#TESTCONTAINERS}.
         *
         * @throws IllegalArgumentException when blank
         */
        public Builder dockerImage(String dockerImage) {
            Objects.requireNonNull(dockerImage, "dockerImage");
            if (dockerImage.isBlank()) {
                throw new IllegalArgumentException("dockerImage must not be blank");
            }
            this.dockerImage = dockerImage;
            return this;
        }

        /**
         * The loopback port a started server listens on (a container's published port); 0, the
         * default, takes a free one.
         *
         * @throws IllegalArgumentException when outside 0..65535
         */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be in 0..65535: " + port);
            }
            this.port = port;
            return this;
        }

        /** Where free ports come from when {@link #port(int)} is 0; by default the operating system's choice. */
        public Builder freePorts(IntSupplier freePorts) {
            this.freePorts = Objects.requireNonNull(freePorts, "freePorts");
            return this;
        }

        /** The launcher. */
        public RedisLauncher build() {
            return new RedisLauncher(this);
        }
    }
}
