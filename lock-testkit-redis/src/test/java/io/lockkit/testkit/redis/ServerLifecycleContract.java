package io.lockkit.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starting, talking to, restarting and stopping servers the fixture owns; run once per local binary
 * (the embedded Redis 6.2 and, when present, the one on the PATH) because their options differ.
 */
abstract class ServerLifecycleContract {

    private final RedisFixture fixture = fixtureBuilder().build();

    /** A builder whose sources yield the binary under test. */
    abstract RedisFixture.Builder fixtureBuilder();

    @Test
    void severalServersRunIndependentlyOnDistinctPorts() {
        List<RedisServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                servers.add(fixture.start());
            }
            assertThat(servers.stream().map(RedisServer::port).distinct()).hasSize(3);
            for (RedisServer server : servers) {
                server.command("SET", "who", Integer.toString(server.port()));
                assertThat(server.command("CONFIG", "GET", "port"))
                        .isEqualTo(List.of("port", Integer.toString(server.port())));
            }
            for (RedisServer server : servers) {
                assertThat(server.command("GET", "who")).isEqualTo(Integer.toString(server.port()));
                assertThat(server.command("DBSIZE")).isEqualTo(1L);
            }
            servers.get(0).stop();
            assertThat(servers.get(1).isRunning()).isTrue();
            assertThat(servers.get(2).command("PING")).isEqualTo("PONG");
        } finally {
            servers.forEach(RedisServer::close);
        }
    }

    @Test
    void extraArgumentsReachTheServer() {
        try (RedisServer server = fixture.start("--maxmemory", "3mb", "--databases", "4")) {
            assertThat(server.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "3145728"));
            assertThat(server.command("CONFIG", "GET", "databases")).isEqualTo(List.of("databases", "4"));
            assertThat(server.command("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
            assertThat(server.command("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
        }
    }

    @Test
    void restartKeepsThePortAndAnswersPingAgain() {
        try (RedisServer server = fixture.start()) {
            int port = server.port();
            long pid = server.pid().orElseThrow();
            server.command("SET", "k", "v");

            server.restart();

            assertThat(server.port()).isEqualTo(port);
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.pid().orElseThrow()).isNotEqualTo(pid);
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
            assertThat(server.command("GET", "k")).as("persistence is off").isNull();
        }
    }

    @Test
    void failedStartReportsTheLogTailAndLeavesNoProcessBehind() {
        Set<Long> before = redisChildren();
        assertThatThrownBy(() -> fixture.start("--no-such-option", "1"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code")
                .hasMessageContaining("last lines of its log")
                .hasMessageContaining("no-such-option")
                .hasMessageContaining("Bad directive");
        assertThat(redisChildren()).isSubsetOf(before);
    }

    @Test
    void stopIsIdempotentAndFreesThePort() throws Exception {
        RedisServer server = fixture.start();
        int port = server.port();
        long pid = server.pid().orElseThrow();
        server.stop();
        server.close();
        server.stop();
        assertThat(server.isRunning()).isFalse();
        assertThat(server.pid()).isEmpty();
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
        assertThatThrownBy(server::restart).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void stopKillsAServerThatNoLongerAnswers() throws Exception {
        assumeFalse(
                System.getProperty("os.name", "")
                        .toLowerCase(java.util.Locale.ROOT)
                        .contains("win"),
                "SIGSTOP needs a POSIX system");
        RedisServer server =
                fixtureBuilder().commandTimeout(Duration.ofMillis(300)).build().start();
        long pid = server.pid().orElseThrow();
        Process kill = new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start();
        assertThat(kill.waitFor()).isZero();

        assertThat(server.isRunning()).isFalse();
        assertThatThrownBy(() -> server.command("PING")).isInstanceOf(java.io.UncheckedIOException.class);

        long begin = System.nanoTime();
        server.stop();
        assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(8));
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
    }

    @Test
    void errorRepliesAreThrownAsRedisCommandException() {
        try (RedisServer server = fixture.start()) {
            assertThatThrownBy(() -> server.command("NO-SUCH-COMMAND"))
                    .isInstanceOf(RedisCommandException.class)
                    .hasMessageStartingWith("ERR");
            server.command("SET", "s", "x");
            assertThatThrownBy(() -> server.command("LPUSH", "s", "y"))
                    .isInstanceOf(RedisCommandException.class)
                    .hasMessageStartingWith("WRONGTYPE");
            assertThat(server.command("INCRBY", "n", "5")).isEqualTo(5L);
            assertThat(server.command("RPUSH", "l", "a", "b")).isEqualTo(2L);
            assertThat(server.command("LRANGE", "l", "0", "-1")).isEqualTo(List.of("a", "b"));
            assertThat(server.command("GET", "missing")).isNull();
        }
    }

    @Test
    void debugCommandIsAllowedForOutageTests() {
        try (RedisServer server = fixture.start()) {
            assertThat(server.command("DEBUG", "SLEEP", "0")).isEqualTo("OK");
        }
    }

    @Test
    void startLocalPutsAConfigFileFirstAndUsesTheGivenPort(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("redis.conf"), "maxmemory 2mb\n");
        int port = RedisFixture.freePort();
        try (RedisServer server =
                fixture.startLocal(port, List.of(config.toString(), "--maxmemory-policy", "allkeys-lru"))) {
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "2097152"));
            assertThat(server.command("CONFIG", "GET", "maxmemory-policy"))
                    .isEqualTo(List.of("maxmemory-policy", "allkeys-lru"));
        }
    }

    @Test
    void sentinelRunsFromTheFixturesBinary(@TempDir Path dir) throws Exception {
        try (RedisServer master = fixture.start()) {
            Path config = Files.writeString(
                    dir.resolve("sentinel.conf"), "sentinel monitor mymaster 127.0.0.1 " + master.port() + " 1\n");
            try (RedisServer sentinel =
                    fixture.startLocal(RedisFixture.freePort(), List.of(config.toString(), "--sentinel"))) {
                assertThat(sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"))
                        .isEqualTo(List.of("127.0.0.1", Integer.toString(master.port())));
            }
        }
    }

    @Test
    void freePortLeavesTheClusterBusPortFree() throws Exception {
        int port = RedisFixture.freePort();
        assertThat(port + 10000).isLessThanOrEqualTo(65535);
        try (var bus = new java.net.ServerSocket(port + 10000, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThat(bus.getLocalPort()).isEqualTo(port + 10000);
        }
    }

    @Test
    void freePortStaysOutOfTheEphemeralRangeSoRestartsKeepTheirPort() {
        int[] ephemeral = io.lockkit.testkit.FreePorts.ephemeralPortRange();
        java.nio.file.Path linux = java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (java.nio.file.Files.isReadable(linux)) {
            String[] fields;
            try (java.io.BufferedReader in = java.nio.file.Files.newBufferedReader(linux)) {
                fields = in.readLine().trim().split("\\s+");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            int low = Integer.parseInt(fields[0]);
            int high = Integer.parseInt(fields[1]);
            if (low > 30000 || high < 55535) { // else the range leaves no room and is ignored
                assertThat(ephemeral).as("the range read from " + linux).containsExactly(low, high);
            }
        }
        for (int i = 0; i < 50; i++) {
            int port = RedisFixture.freePort();
            assertThat(port < ephemeral[0] || port > ephemeral[1])
                    .as("port %d outside %d-%d", port, ephemeral[0], ephemeral[1])
                    .isTrue();
            assertThat(port + 10000 < ephemeral[0] || port + 10000 > ephemeral[1])
                    .as("bus port of %d outside the range", port)
                    .isTrue();
        }
    }

    @Test
    void restartWaitsOutSomethingThatBrieflyHoldsThePort() throws Exception {
        try (RedisServer server = fixture.start()) {
            server.command("SET", "k", "v");
            int port = server.port();
            java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            // Grabs the port the moment the old server lets go of it and keeps it for 600 ms, as a
            // client socket that connected to itself would.
            Thread squatter = new Thread(
                    () -> {
                        while (!done.get()) {
                            try (var socket =
                                    new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
                                held.set(true);
                                Thread.sleep(600);
                                return;
                            } catch (java.io.IOException e) {
                                Thread.onSpinWait();
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "port-squatter");
            squatter.start();
            try {
                server.restart();
            } finally {
                done.set(true);
                squatter.join(5000);
            }
            org.junit.jupiter.api.Assumptions.assumeTrue(
                    held.get(),
                    "the new server bound the port before the squatter could: nothing to wait out this time");
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.command("GET", "k")).as("data after a restart").isNull();
        }
    }

    private static Set<Long> redisChildren() {
        return ProcessHandle.current()
                .children()
                .filter(p ->
                        p.info().command().map(c -> c.contains("redis-server")).orElse(false))
                .map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }
}
