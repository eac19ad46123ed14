package io.lockkit.quarkus.deployment;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import io.quarkus.deployment.builditem.Startable;
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
//   binary on a free loopback port and waits until it answers PING; a container when Testcontainers
//   is on the build's class path and a container runtime answers.
// - No container: getContainerId() is null, as Quarkus expects of a service it cannot show in a
//   container list.
final class DevServicesRedis implements Startable {

    private static final Logger LOG = Logger.getLogger(DevServicesRedis.class);

    /** The configuration key naming the sources, for messages. */
    static final String SOURCES_KEY = "quarkus.lockkit.devservices.sources";

    private final List<Source> sources;
    private @Nullable RedisServer server;

    DevServicesRedis(List<Source> sources) {
        this.sources = List.copyOf(sources);
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
        RedisServer started = RedisFixture.builder()
                .sources(sources.toArray(new Source[0]))
                .build()
                .start();
        server = started;
        LOG.infof(
                "lockkit Dev Services: Redis %s from %s at %s (quarkus.lockkit.redis.uri); shared across live"
                        + " reloads, stopped when the application exits",
                started.version(), describe(started.source()), started.uri());
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
            running.stop();
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
