package io.lockkit.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The server tests on WildFly standard (Jakarta EE 10), and the JDBC provider on a server DataSource. */
class WildFlyIT extends ServerTests {

    WildFlyIT() {
        super(ServerKind.WILDFLY);
    }

    /**
     * A copy of the application configured with {@code lockkit.provider=jdbc} and the JNDI name of a
     * PostgreSQL DataSource the server defines (not the application): the read-pause-write counter
     * across both instances counts every call, the locks are rows of PostgreSQL's lock table, and a
     * {@code @Locked @Transactional} method (a JTA transaction on the server's other DataSource)
     * books each slot once, the lock's statements running outside that transaction.
     */
    @Test
    @Order(14)
    void jdbcProviderOnTheServersPostgresDataSource() throws Exception {
        String name = CONTEXT_JDBC;
        String config = "lockkit.provider=jdbc\n"
                + "lockkit.jdbc.datasource=" + WildFlyInstance.LOCKS_DATA_SOURCE + "\n"
                + "lockkit.jdbc.create-schema=true\n";
        Path warA = a.variantWar(name, config);
        Path warB = b.variantWar(name, config);
        a.deployOther(warA, name);
        b.deployOther(warB, name);
        try {
            Http jdbcA = new Http(a, name);
            Http jdbcB = new Http(b, name);
            assertThat(jdbcA.get("factory").ok()).contains("JdbcLockProvider");
            List<Http.Response> responses =
                    concurrently(20, a, b, server -> (server == a ? jdbcA : jdbcB).post("counter/jdbc-c/locked"));
            responses.forEach(Http.Response::ok);
            Object rows = postgres.query("select count(*) from lockkit_locks");
            report("JDBC provider on " + WildFlyInstance.LOCKS_DATA_SOURCE + " (PostgreSQL " + postgres.version()
                    + "): counter " + jdbcA.get("counter/jdbc-c").ok() + " of 40, "
                    + Inspect.sharedLog(shared, "overlaps", "counter-jdbc-c").size() + " overlaps, " + rows
                    + " rows in lockkit_locks");
            assertThat(jdbcA.get("counter/jdbc-c").ok()).isEqualTo("40");
            assertThat(Inspect.sharedLog(shared, "overlaps", "counter-jdbc-c")).isEmpty();
            assertThat(((Number) rows).longValue())
                    .as("lock rows in PostgreSQL")
                    .isPositive();
            for (int slot = 0; slot < 5; slot++) {
                String path = "bookings/jdbc-" + slot + "/locked-transactional?who=";
                List<Http.Response> bookers = concurrently(2, a, a, server -> jdbcA.post(path + "x"));
                assertThat(bookers).allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
                assertThat(bookers.stream().filter(r -> r.body().equals("true")))
                        .hasSize(1);
            }
        } finally {
            a.undeployOther(name);
            b.undeployOther(name);
        }
    }

    private static final String CONTEXT_JDBC = ServerInstance.CONTEXT + "-jdbc";
}
