package io.lockkit.redis.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The quiet look for a container runtime, on fake engines that answer Docker's ping (or do not). */
class ContainerRuntimeProbeTest {

    private static final String OK = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nOK";

    @TempDir
    Path dir;

    @Test
    void noDockerHostAndNoSocketIsNoRuntimeWithoutAskingTestcontainers() {
        ContainerRuntimeProbe.Verdict verdict =
                ContainerRuntimeProbe.probe(Map.of(), dir, List.of(dir.resolve("docker.sock")), false);
        assertThat(verdict.ask()).isFalse();
        assertThat(verdict.reason())
                .contains("no container runtime found")
                .contains("DOCKER_HOST is not set")
                .contains(dir.resolve("docker.sock").toString());
    }

    @Test
    void aSocketThatAnswersThePingIsLeftToTestcontainers() throws Exception {
        Path socket = dir.resolve("docker.sock");
        try (ServerSocketChannel engine = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            engine.bind(UnixDomainSocketAddress.of(socket));
            Thread answering = answerOnce(engine, OK);
            ContainerRuntimeProbe.Verdict verdict = ContainerRuntimeProbe.probe(Map.of(), dir, List.of(socket), false);
            answering.join(10_000);
            assertThat(verdict.ask()).isTrue();
            assertThat(verdict.reason()).contains("answers at " + socket);
        }
    }

    @Test
    void aSocketFileWithoutAnEngineIsNoRuntime() throws Exception {
        Path socket = dir.resolve("docker.sock");
        try (ServerSocketChannel engine = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            engine.bind(UnixDomainSocketAddress.of(socket));
        } // closed: the file stays, nothing listens (a stopped daemon)
        assertThat(socket).exists();
        ContainerRuntimeProbe.Verdict verdict = ContainerRuntimeProbe.probe(Map.of(), dir, List.of(socket), false);
        assertThat(verdict.ask()).isFalse();
        assertThat(verdict.reason()).contains("nothing answers at " + socket);
    }

    @Test
    void anEngineThatAnswersSomethingElseIsNoRuntime() throws Exception {
        Path socket = dir.resolve("docker.sock");
        try (ServerSocketChannel engine = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            engine.bind(UnixDomainSocketAddress.of(socket));
            Thread answering = answerOnce(engine, "HTTP/1.0 404 Not Found\r\n\r\nno");
            ContainerRuntimeProbe.Verdict verdict = ContainerRuntimeProbe.probe(Map.of(), dir, List.of(socket), false);
            answering.join(10_000);
            assertThat(verdict.ask()).isFalse();
        }
    }

    @Test
    void dockerHostOverTcpIsPinged() throws Exception {
        try (ServerSocket engine = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String host = "tcp://127.0.0.1:" + engine.getLocalPort();
            Thread answering = new Thread(() -> {
                try (Socket client = engine.accept()) {
                    client.getInputStream().read(new byte[256]);
                    OutputStream out = client.getOutputStream();
                    out.write(OK.getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                } catch (IOException e) {
                    // the probe's assertion below reports it
                }
            });
            answering.start();
            ContainerRuntimeProbe.Verdict verdict =
                    ContainerRuntimeProbe.probe(Map.of("DOCKER_HOST", host), dir, List.of(), false);
            answering.join(10_000);
            assertThat(verdict.ask()).isTrue();
            assertThat(verdict.reason()).contains("DOCKER_HOST=" + host);
        }
        int closed;
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = gone.getLocalPort();
        }
        ContainerRuntimeProbe.Verdict none =
                ContainerRuntimeProbe.probe(Map.of("DOCKER_HOST", "tcp://127.0.0.1:" + closed), dir, List.of(), false);
        assertThat(none.ask()).isFalse();
        assertThat(none.reason()).contains("no container runtime answers at DOCKER_HOST=tcp://127.0.0.1:" + closed);
    }

    @Test
    void setUpsTheProbeDoesNotFollowAreLeftToTestcontainers() throws Exception {
        Files.writeString(dir.resolve(".testcontainers.properties"), "tc.host=tcp://cloud:2375\n");
        assertThat(ContainerRuntimeProbe.probe(Map.of(), dir, List.of(), false).ask())
                .as("a Testcontainers host")
                .isTrue();
        Path other = Files.createDirectory(dir.resolve("other"));
        assertThat(ContainerRuntimeProbe.probe(Map.of("DOCKER_CONTEXT", "colima"), other, List.of(), false)
                        .ask())
                .as("a Docker context")
                .isTrue();
        assertThat(ContainerRuntimeProbe.probe(Map.of(), other, List.of(), true).ask())
                .as("Windows")
                .isTrue();
    }

    /** Answers one connection's request with {@code response}, then closes it. */
    private static Thread answerOnce(ServerSocketChannel engine, String response) {
        Thread thread = new Thread(() -> {
            try (SocketChannel client = engine.accept()) {
                client.read(ByteBuffer.allocate(256));
                client.write(ByteBuffer.wrap(response.getBytes(StandardCharsets.US_ASCII)));
            } catch (IOException e) {
                // the probe's assertion reports it
            }
        });
        thread.start();
        return thread;
    }
}
