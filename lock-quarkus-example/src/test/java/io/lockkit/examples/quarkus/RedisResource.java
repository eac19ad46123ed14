package io.lockkit.examples.quarkus;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.List;
import java.util.Map;

/**
 * Starts a real Redis through the lockkit fixture and hands its URI to the application as
 * lockkit.redis.uri. Injected into test fields of this type, so a test can stop the server and
 * start it again on the same port (an outage), when the fixture runs it as a local process.
 */
public class RedisResource implements QuarkusTestResourceLifecycleManager {

    private final RedisFixture fixture = RedisFixture.builder().build();
    private volatile RedisServer server;
    private int port;

    @Override
    public Map<String, String> start() {
        server = fixture.start();
        port = server.port();
        return Map.of("lockkit.redis.uri", server.uri());
    }

    @Override
    public void inject(TestInjector testInjector) {
        testInjector.injectIntoFields(this, new TestInjector.MatchesType(RedisResource.class));
    }

    /** Whether this run's Redis is a local process the test may stop (not a container, nor a server given by URI). */
    public boolean canStop() {
        return server.source() == Source.PATH || server.source() == Source.EMBEDDED;
    }

    /** Stops the application's Redis. */
    public synchronized void stopServer() {
        server.stop();
    }

    /** Starts the application's Redis again, on the same port, once stopped; returns when it answers. */
    public synchronized void startServerAgain() {
        if (!server.isRunning()) {
            server = fixture.startLocal(port, List.of());
        }
    }

    @Override
    public synchronized void stop() {
        if (server != null) {
            server.close();
        }
    }
}
