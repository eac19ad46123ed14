package io.lockkit.quarkus.deployment;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
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
// - The server is the test kit's: RedisFixture starts redis-server from the PATH or its bundled
//   binary on a free (or the configured) loopback port and waits until it answers PING; a container
//   when Testcontainers is on the build's class path and a container runtime answers. The fixture
//   looks for a container runtime quietly before it asks Testcontainers, whose own search logs an
//   ERROR on a machine without one; why no container was used goes into this class's one INFO line
//   (the fixture's own line is DEBUG here).
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

    private final Settings settings;
    private @Nullable RedisServer server;

    DevServicesRedis(Settings settings) {
        this.settings = settings;
    }

    /**
     * The test kit's sources for the configured names ({@code container}, {@code path}, {@code embedded}).
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
            RedisServer found = RedisFixture.builder()
                    .explicitUri("redis://127.0.0.1:" + settings.port())
                    .sources(Source.EXPLICIT_URI)
                    .announce(false)
                    .build()
                    .start();
            server = found;
            LOG.infof(
                    "lockkit Dev Services: Redis %s already at %s (quarkus.lockkit.devservices.port, shared), used as"
                            + " quarkus.lockkit.redis.uri; left running when the application exits",
                    found.version(), found.uri());
            return;
        }
        RedisServer started = RedisFixture.builder()
                .sources(settings.sources().toArray(new Source[0]))
                .port(settings.port())
                .announce(false) // this class logs the one line
                .build()
                .start();
        server = started;
        LOG.infof(
                "lockkit Dev Services: Redis %s from %s at %s (quarkus.lockkit.redis.uri)%s; shared across live"
                        + " reloads, stopped when the application exits",
                started.version(), describe(started.source()), started.uri(), passedOver(started));
    }

    /** Why sources tried before the server's gave none (a container, mostly), for the log line. */
    private static String passedOver(RedisServer server) {
        StringBuilder why = new StringBuilder();
        for (String reason : server.passedOver()) {
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
                return "a container (" + RedisFixture.DEFAULT_DOCKER_IMAGE + ")";
            case PATH:
                return "the redis-server on the PATH";
            case EMBEDDED:
                return "the redis-server binary bundled with lockkit's test kit";
            default:
                return source.name();
        }
    }

    @Override
    public String getConnectionInfo() {
        return running().uri();
    }

    /** Where the running server came from. */
    Source source() {
        return running().source();
    }

    @Override
    public @Nullable String getContainerId() {
        return null;
    }

    @Override
    public void close() {
        RedisServer running = server;
        if (running != null) {
            server = null;
            running.stop(); // a shared server found running (explicit URI) is left alone
            LOG.debugf("lockkit Dev Services: Redis at %s stopped", running.uri());
        }
    }

    private RedisServer running() {
        RedisServer running = server;
        if (running == null) {
            throw new IllegalStateException("lockkit Dev Services: the Redis server is not running");
        }
        return running;
    }
}
