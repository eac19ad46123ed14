package io.lockkit.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
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

    /**
     * A copy of the application whose Redis is a port nobody listens on ({@code lockkit.startup=lazy},
     * so it deploys): its {@code @Locked} endpoint answers {@code 503} with {@code Retry-After}
     * (lock-cdi's exception mapper, which RESTEasy finds in {@code WEB-INF/lib} by itself), and the
     * server's log has one outage warning however many calls (and {@code @Locked} timer ticks, which
     * are skipped) failed meanwhile. Only here, on one server: a copy deploys in seconds on WildFly.
     */
    @Test
    @Order(15)
    void unavailableRedisAnswers503WithRetryAfterAndIsLoggedOnce() {
        String name = CONTEXT_OUTAGE;
        int closedPort = io.lockkit.testkit.redis.RedisFixture.freePort();
        String config = "lockkit.redis.uri=redis://127.0.0.1:" + closedPort + "\nlockkit.startup=lazy\n";
        Path war = a.variantWar(name, config);
        long logBefore = a.logSize();
        a.deployOther(war, name);
        try {
            Http outage = new Http(a, name);
            List<Http.Response> answers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                answers.add(outage.post("counter/outage-c/locked"));
            }
            String log = a.logSince(logBefore);
            long warnings = log.lines()
                    .filter(line -> line.contains("the lock backend is unavailable to @Locked calls"))
                    .count();
            report("Redis at a closed port " + closedPort + ": answers "
                    + answers.stream()
                            .map(r -> r.status() + " Retry-After "
                                    + r.retryAfter().orElse("-"))
                            .distinct()
                            .toList()
                    + "; outage warnings in the server log: " + warnings);
            assertThat(answers).allSatisfy(r -> {
                assertThat(r.status()).as(r.readable()).isEqualTo(503);
                assertThat(r.retryAfter()).hasValue("5");
                assertThat(r.body()).isEqualTo("The lock service is unavailable; retry later.\n");
            });
            assertThat(warnings).as("outage warnings in the server log").isEqualTo(1);
            assertThat(log).as("the warning's line names the root cause").contains("Connection refused");
        } finally {
            a.undeployOther(name);
        }
    }

    private static final String CONTEXT_JDBC = ServerInstance.CONTEXT + "-jdbc";
    private static final String CONTEXT_OUTAGE = ServerInstance.CONTEXT + "-outage";
}
