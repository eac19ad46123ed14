package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The first line of a failure names its root cause: a server log shows the message, and Jedis
 * keeps the reason ({@code UnknownHostException}, a refused connect) in causes far below it.
 */
@DisplayName("a Redis failure's message names its root cause")
class FailureMessageTest {

    /** A name that never resolves (RFC 2606), so no DNS server is asked about a real one. */
    static final String UNRESOLVABLE = "lockkit-test.invalid";

    @Test
    @DisplayName("a host that does not resolve: UnknownHostException and the host in the message")
    void unresolvableHost() {
        Throwable e = firstCallFails("redis://" + UNRESOLVABLE + ":6379");
        assertThat(e).isInstanceOf(BackendUnavailableException.class);
        assertThat(e.getMessage())
                .startsWith("Redis could not be reached: ")
                .contains("UnknownHostException: " + UNRESOLVABLE)
                .doesNotContain("\n");
    }

    @Test
    @DisplayName("a closed port: the address and 'Connection refused' in the message")
    void refusedConnection() throws IOException {
        int port = closedPort();
        Throwable e = firstCallFails("redis://127.0.0.1:" + port);
        assertThat(e).isInstanceOf(BackendUnavailableException.class);
        assertThat(e.getMessage())
                .startsWith("Redis could not be reached: ")
                .contains("127.0.0.1:" + port)
                .contains("Connection refused")
                .doesNotContain("\n");
    }

    @Test
    @DisplayName("Sentinels or Cluster nodes that do not resolve: the build fails naming the target (a Cluster: and the"
            + " unresolved host; Jedis keeps no cause for Sentinels)")
    void unresolvableTopology() {
        String nowhere = UNRESOLVABLE + ":26379";
        Throwable sentinel = catchThrowable(() -> JedisLockProvider.builder()
                .sentinel("m", List.of(nowhere))
                .connectTimeout(Duration.ofMillis(500))
                .build()
                .close());
        assertThat(sentinel).isInstanceOf(BackendUnavailableException.class);
        assertThat(sentinel.getMessage()).contains("sentinel master m via").doesNotContain("\n");
        Throwable cluster = catchThrowable(() -> JedisLockProvider.builder()
                .cluster(List.of(nowhere))
                .connectTimeout(Duration.ofMillis(500))
                .build()
                .close());
        assertThat(cluster).isInstanceOf(BackendUnavailableException.class);
        assertThat(cluster.getMessage())
                .contains("cluster via")
                .contains("UnknownHostException: " + UNRESOLVABLE)
                .doesNotContain("\n");
    }

    /** What the first call of a factory over {@code uri} throws. */
    private static Throwable firstCallFails(String uri) {
        JedisLockProvider provider = JedisLockProvider.builder()
                .uri(uri)
                .timeout(Duration.ofMillis(500))
                .connectTimeout(Duration.ofMillis(500))
                .build();
        try (DistributedLockFactory f = DistributedLockFactory.create(provider)) {
            return catchThrowable(() -> f.operations().inspect("failure-message"));
        }
    }

    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
