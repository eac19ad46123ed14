package io.lockkit.examples.quarkus;

import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Starts a real PostgreSQL through the lockkit fixture (embedded binaries without Docker), makes it
 * the application's default Agroal datasource and selects lockkit.provider=jdbc on it.
 */
public class PostgresResource implements QuarkusTestResourceLifecycleManager {

    private PostgresServer server;

    @Override
    public Map<String, String> start() {
        server = PostgresFixture.builder().build().start();
        return Map.of(
                "quarkus.datasource.jdbc.url",
                server.jdbcUrl(),
                "lockkit.provider",
                "jdbc",
                "lockkit.jdbc.create-schema",
                "true",
                "lockkit.test.jdbc-url",
                server.jdbcUrl());
    }

    @Override
    public void stop() {
        if (server != null) {
            server.close();
        }
    }
}
