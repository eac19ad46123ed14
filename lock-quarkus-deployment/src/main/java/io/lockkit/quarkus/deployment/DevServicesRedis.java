package io.lockkit.quarkus.deployment;

import io.lockkit.redis.launcher.Endpoint;
import io.lockkit.redis.launcher.RedisLauncher;
import io.lockkit.redis.launcher.RedisLauncher.Source;
import io.lockkit.redis.launcher.ServerControl;
import io.quarkus.deployment.builditem.Startable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Locale;
import org.jboss.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * A Redis server for dev and test mode, from the first source that yields one. Quarkus starts it,
 * keeps it across live reloads while the Dev Services configuration is unchanged, and closes it when
 * the application exits.
 */
// Design notes.
// - The server is lock-redis-launcher's (the JUnit-free core of the test kit's Redis fixture):
//   redis-server from the PATH or its bundled binary on a free (or the configured) loopback port,
//   awaited until it answers PING; a container when Testcontainers is on the build's class path and a
//   container runtime answers. The launcher looks for a container runtime quietly before it asks
//   Testcontainers, whose own search logs an ERROR on a machine without one; why no container was used
//   goes into this class's one INFO line.
// - Shared: with a fixed port, a Redis that already listens there (another application's Dev
//   Services on the same port, say) is used as it is and never stopped by this application, as
//   Quarkus' container Dev Services share a container they find by its label.
// - No container: getContainerId() is null, as Quarkus expects of a service it cannot show in a
//   container list.
final class DevServicesRedis implements Startable {

    private static final Logger LOG = Logger.getLogger(DevServicesRedis.class);

    /** The configuration key naming the sources, for messages. */
    static final String SOURCES_KEY = "quarkus.lockkit.devservices.sources";

    /** How long a connection to a fixed port may take to tell whether a server listens there. */
    private static final int LISTENING_TIMEOUT_MILLIS = 500;

    /**
     * What the server is started from; Quarkus keeps the server while these are equal.
     *
     * @param sources where the server may come from, in order
     * @param port the fixed port, or 0 for a free one
     * @param shared whether a Redis already answering on the fixed port is used instead of starting one
     */
    record Settings(List<Source> sources, int port, boolean shared) {}

    /** A started or found server and its version. */
    private record Running(ServerControl control, String version) {}

    private final Settings settings;
    private @Nullable Running server;

    DevServicesRedis(Settings settings) {
        this.settings = settings;
    }

    /**
     * The launcher's sources for the configured names ({@code container}, {@code path}, {@code embedded}).
     *
     * @throws IllegalArgumentException naming {@value #SOURCES_KEY} for an unknown name
     */
    static List<Source> sources(List<String> names) {
        return names.stream().map(DevServicesRedis::source).distinct().toList();
    }

    private static Source source(String name) {
        switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "container":
                return Source.TESTCONTAINERS;
            case "path":
                return Source.PATH;
            case "embedded":
                return Source.EMBEDDED;
            default:
                throw new IllegalArgumentException(SOURCES_KEY + " names an unknown source '" + name.trim()
                        + "'; known: container, path, embedded");
        }
    }

    @Override
    public void start() {
        if (settings.shared() && settings.port() != 0 && listening(settings.port())) {
            ServerControl found = ServerControl.unowned(Endpoint.loopback(settings.port()));
            String version = version(found);
            server = new Running(found, version);
            LOG.infof(
                    "lockkit Dev Services: Redis %s already at %s (quarkus.lockkit.devservices.port, shared), used as"
                            + " quarkus.lockkit.redis.uri; left running when the application exits",
                    version, found.endpoint().redactedUri());
            return;
        }
        RedisLauncher.Launch launch = RedisLauncher.builder()
                .sources(settings.sources().toArray(new Source[0]))
                .port(settings.port())
                .build()
                .launch(List.of());
        Running started;
        try {
            started = new Running(launch.control(), version(launch.control()));
        } catch (RuntimeException e) {
            launch.control().stop();
            throw e;
        }
        server = started;
        LOG.infof(
                "lockkit Dev Services: Redis %s from %s at %s (quarkus.lockkit.redis.uri)%s; shared across live"
                        + " reloads, stopped when the application exits",
                started.version(), describe(launch.source()), getConnectionInfo(), passedOver(launch.passedOver()));
    }

    /** The server's version, as its log line names it. */
    private static String version(ServerControl control) {
        try {
            return RedisLauncher.version(control.endpoint());
        } catch (IOException e) {
            throw new IllegalStateException(
                    "lockkit Dev Services: the Redis at " + control.endpoint().redactedUri() + " does not answer INFO: "
                            + e.getMessage(),
                    e);
        }
    }

    /** Why sources tried before the server's gave none (a container, mostly), for the log line. */
    private static String passedOver(List<String> reasons) {
        StringBuilder why = new StringBuilder();
        for (String reason : reasons) {
            if (reason.startsWith(Source.TESTCONTAINERS + ": ")) {
                why.append("; not a container: ")
                        .append(reason.substring(Source.TESTCONTAINERS.name().length() + 2));
            }
        }
        return why.toString();
    }

    /** Whether something accepts connections on this loopback port. */
    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), LISTENING_TIMEOUT_MILLIS);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Where a server came from, as the log says it. */
    static String describe(Source source) {
        switch (source) {
            case TESTCONTAINERS:
                return "a container (" + RedisLauncher.DEFAULT_DOCKER_IMAGE + ")";
            case PATH:
                return "the redis-server on the PATH";
            case EMBEDDED:
                return "the redis-server binary bundled with lockkit's Redis launcher";
            default:
                return source.name();
        }
    }

    @Override
    public String getConnectionInfo() {
        return running().control().endpoint().redactedUri();
    }

    @Override
    public @Nullable String getContainerId() {
        return null;
    }

    @Override
    public void close() {
        Running running = server;
        if (running != null) {
            server = null;
            running.control().stop(); // a shared server found running is left alone
            LOG.debugf(
                    "lockkit Dev Services: Redis at %s stopped",
                    running.control().endpoint().redactedUri());
        }
    }

    private Running running() {
        Running running = server;
        if (running == null) {
            throw new IllegalStateException("lockkit Dev Services: the Redis server is not running");
        }
        return running;
    }
}
