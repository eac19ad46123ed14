package io.lockkit.examples.quarkus;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.Map;

/** Starts a real Redis through the lockkit fixture and hands its URI to the application as lockkit.redis.uri. */
public class RedisResource implements QuarkusTestResourceLifecycleManager {

    private RedisServer server;

    @Override
    public Map<String, String> start() {
        server = RedisFixture.builder().build().start();
        return Map.of("lockkit.redis.uri", server.uri());
    }

    @Override
    public void stop() {
        if (server != null) {
            server.close();
        }
    }
}
