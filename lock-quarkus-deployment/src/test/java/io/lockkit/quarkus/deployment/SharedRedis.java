package io.lockkit.quarkus.deployment;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Redis a test starts before its application, once per test JVM although QuarkusUnitTest loads
 * the test class twice (in the test's class loader and in the application's): the first load
 * starts it and records its URI in a system property, the second only reads the property.
 */
final class SharedRedis {

    /** The servers started here, by property; only in the class loader that started them. */
    private static final Map<String, RedisServer> STARTED = new ConcurrentHashMap<>();

    private SharedRedis() {}

    /** The URI of the Redis {@code property} names, started now (on {@code port}, 0 for a free one) if it names none. */
    static synchronized String uri(String property, int port) {
        String uri = System.getProperty(property);
        if (uri != null) {
            return uri;
        }
        RedisServer server = RedisFixture.builder()
                .sources(Source.PATH, Source.EMBEDDED)
                .port(port)
                .build()
                .start();
        STARTED.put(property, server);
        System.setProperty(property, server.uri());
        return server.uri();
    }

    /** The port of {@code uri}, {@code redis://host:port}. */
    static int port(String uri) {
        return Integer.parseInt(uri.substring(uri.lastIndexOf(':') + 1));
    }

    /** Whether the Redis started for {@code property} (in this class loader) still runs. */
    static boolean running(String property) {
        RedisServer server = STARTED.get(property);
        return server != null && server.isRunning();
    }

    /** Stops the Redis started for {@code property} and forgets it. */
    static void stop(String property) {
        RedisServer server = STARTED.remove(property);
        System.clearProperty(property);
        if (server != null) {
            server.stop();
        }
    }

    /** A client of the Redis {@code property} names, which never stops it. */
    static RedisServer view(String property) {
        return RedisFixture.builder()
                .explicitUri(System.getProperty(property))
                .sources(Source.EXPLICIT_URI)
                .build()
                .start();
    }
}
