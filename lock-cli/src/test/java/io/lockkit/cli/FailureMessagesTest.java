package io.lockkit.cli;

import static io.lockkit.cli.CliSupport.json;
import static io.lockkit.cli.CliSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import io.lockkit.cli.CliSupport.Result;
import io.lockkit.testkit.redis.RedisFixture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The first line of a failure says why: the root cause of an unreachable backend, and a missing
 * JDBC driver as such (with how to add it), not as an unreachable database.
 */
@DisplayName("lockkit CLI: what a failure's first line says")
class FailureMessagesTest {

    /** A name that never resolves (RFC 2606), so no DNS server is asked about a real one. */
    private static final String UNRESOLVABLE = "lockkit-test.invalid";

    @Test
    @DisplayName("a Redis host that does not resolve: exit 3, and UnknownHostException with the host on the first line")
    void unresolvableRedisHost() {
        Result r = run("--uri", "redis://" + UNRESOLVABLE + ":6379", "--timeout", "500ms", "list");
        assertThat(r.code()).as("%s", r).isEqualTo(LockkitCli.EXIT_BACKEND);
        assertThat(firstLine(r))
                .startsWith("lockkit: Redis at redis://" + UNRESOLVABLE + ":6379 is unreachable")
                .contains("UnknownHostException: " + UNRESOLVABLE);
    }

    @Test
    @DisplayName("a closed Redis port: exit 3, and 'Connection refused' with the address on the first line")
    void refusedRedisPort() {
        int port = RedisFixture.freePort();
        Result r = run("--uri", "redis://127.0.0.1:" + port, "--timeout", "500ms", "list");
        assertThat(r.code()).as("%s", r).isEqualTo(LockkitCli.EXIT_BACKEND);
        assertThat(firstLine(r)).contains("127.0.0.1:" + port).contains("Connection refused");
    }

    @Test
    @DisplayName(
            "a PostgreSQL host that does not resolve: the driver's 'The connection attempt failed' gains the cause")
    void unresolvableDatabaseHost() {
        Result r = run("--uri", "jdbc:postgresql://" + UNRESOLVABLE + ":5432/app", "--timeout", "1s", "list");
        assertThat(r.code()).as("%s", r).isEqualTo(LockkitCli.EXIT_BACKEND);
        assertThat(firstLine(r))
                .startsWith("lockkit: The database at jdbc:postgresql://" + UNRESOLVABLE)
                .contains("UnknownHostException: " + UNRESOLVABLE);
    }

    @Test
    @DisplayName(
            "jdbc:mariadb: without the MariaDB driver: a usage error (exit 2) naming the driver's coordinates and how to"
                    + " put its jar on the CLI's class path, never 'unreachable'")
    void missingJdbcDriver() {
        String uri = "jdbc:mariadb://127.0.0.1:" + RedisFixture.freePort() + "/app";
        Result r = run("--uri", uri, "list");
        assertThat(r.code()).as("%s", r).isEqualTo(LockkitCli.EXIT_USAGE);
        assertThat(firstLine(r))
                .startsWith("lockkit: --uri = '" + uri + "'")
                .contains(
                        "no JDBC driver for jdbc:mariadb: on the class path; add org.mariadb.jdbc:mariadb-java-client")
                .contains("java -cp lockkit-cli.jar:<driver>.jar io.lockkit.cli.LockkitCli")
                .doesNotContain("unreachable")
                .doesNotContain("No suitable driver");
        Result asJson = run("--json", "--uri", uri, "list");
        JsonObject error = json(asJson.out()).getAsJsonObject();
        assertThat(error.get("error").getAsString()).isEqualTo("usage");
        assertThat(error.get("message").getAsString()).contains("org.mariadb.jdbc:mariadb-java-client");
    }

    private static String firstLine(Result r) {
        return r.err().lines().findFirst().orElse("");
    }
}
