package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A start that fails on an unreachable backend says why on the first line a server logs: the
 * container's exception message, not the "Caused by" dozens of lines further down.
 */
@DisplayName("a start that fails on an unreachable backend names the root cause on its first line")
class StartupFailureCauseTest {

    /** A name that never resolves (RFC 2606), so no DNS server is asked about a real one. */
    private static final String UNRESOLVABLE = "lockkit-test.invalid";

    @AfterEach
    void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("a Redis host that does not resolve: UnknownHostException and the host on the first line")
    void unresolvableRedisHost() {
        String uri = "redis://" + UNRESOLVABLE + ":6379";
        Lockkit.useConfig(Map.of("lockkit.redis.uri", uri, "lockkit.redis.timeout", "500ms"));
        assertThat(firstLines("startup-unresolvable"))
                .as("the first line of the exception, or of the error an implementation logs")
                .anySatisfy(line -> assertThat(line)
                        .contains("lockkit: the lock backend did not answer at application start")
                        .contains("UnknownHostException: " + UNRESOLVABLE));
    }

    @Test
    @DisplayName("a closed port: 'Connection refused' and the address on the first line")
    void refusedRedisPort() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Lockkit.useConfig(Map.of("lockkit.redis.uri", "redis://127.0.0.1:" + port, "lockkit.redis.timeout", "500ms"));
        assertThat(firstLines("startup-refused"))
                .anySatisfy(line -> assertThat(line)
                        .contains("lockkit: the lock backend did not answer at application start")
                        .contains("127.0.0.1:" + port)
                        .contains("Connection refused"));
    }

    @Test
    @DisplayName("a JDBC URL whose host does not resolve: the driver's vague message gains UnknownHostException")
    void unresolvableDatabaseHost() {
        Lockkit.useConfig(Map.of(
                "lockkit.provider",
                "jdbc",
                "lockkit.jdbc.url",
                "jdbc:postgresql://" + UNRESOLVABLE + ":5432/app",
                "lockkit.jdbc.timeout",
                "1s"));
        assertThat(firstLines("startup-unresolvable-jdbc"))
                .anySatisfy(line -> assertThat(line)
                        .contains("lockkit: the lock backend did not answer at application start")
                        .contains("UnknownHostException: " + UNRESOLVABLE));
    }

    /**
     * The first line of the exception that failed the start (Weld puts the deployment problems in
     * its message) and of each error logged meanwhile (OpenWebBeans logs them).
     */
    private static java.util.List<String> firstLines(String application) {
        Lockkit.Failure failure = Lockkit.failure(() -> Lockkit.start(application, LockUser.class));
        java.util.List<String> lines = new java.util.ArrayList<>();
        lines.add(firstLine(String.valueOf(failure.error().getMessage())));
        failure.logged().forEach(logged -> lines.add(firstLine(logged)));
        return lines;
    }

    private static String firstLine(String text) {
        return text.lines().findFirst().orElse("");
    }
}
