package io.lockkit.redis.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Whether a container runtime may answer, found without Testcontainers, so that a machine without
 * one is told quietly. Stateless; each {@link #probe} call asks anew.
 */
// Design notes.
// - Testcontainers' own search logs an ERROR ("Could not find a valid Docker environment") when no
//   engine answers, on every run of a machine without Docker, although the launcher then goes on to
//   the next source as designed. So Testcontainers is asked only when this probe finds an engine that
//   answers its ping, or a set-up this probe does not follow (a Testcontainers host or client strategy,
//   a Docker context, Windows' named pipe, TLS to a TCP engine): then it decides, as before.
// - The probe follows what Testcontainers tries by default: DOCKER_HOST (unix:// or tcp://), else the
//   sockets of a system, rootless or Docker Desktop engine. Each answers GET /_ping with "OK".
// - A socket file without an engine behind it (a stopped daemon) counts as none.
final class ContainerRuntimeProbe {

    /** How long one ping may take. */
    static final Duration PING_TIMEOUT = Duration.ofSeconds(2);

    /** Whether to ask Testcontainers, and why (for the launcher's list of skipped sources and the log). */
    record Verdict(boolean ask, String reason) {}

    private static final byte[] PING =
            "GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private ContainerRuntimeProbe() {}

    /**
     * Why the launcher cannot start a container, or null when it can try: Testcontainers is on the
     * class path and a container runtime answers (asked quietly first, then Testcontainers itself).
     */
    static @Nullable String whyNoContainer() {
        try {
            Class.forName("org.testcontainers.DockerClientFactory", false, RedisLauncher.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return "org.testcontainers:testcontainers is not on the class path";
        }
        Verdict runtime = probe();
        if (!runtime.ask()) {
            return runtime.reason();
        }
        return TestcontainersSupport.dockerAvailable() ? null : "no Docker engine answers";
    }

    /** The verdict for this machine: its environment, home directory and operating system. */
    static Verdict probe() {
        String xdg = System.getenv("XDG_RUNTIME_DIR");
        List<Path> sockets = new ArrayList<>(List.of(Path.of("/var/run/docker.sock")));
        if (xdg != null && !xdg.isBlank()) {
            sockets.add(Path.of(xdg, "docker.sock"));
        }
        return probe(System.getenv(), Path.of(System.getProperty("user.home", ".")), sockets, isWindows());
    }

    /**
     * The verdict for this environment, home directory (its {@code .testcontainers.properties},
     * {@code .docker}) and system sockets ({@code /var/run/docker.sock}, the rootless one).
     */
    static Verdict probe(Map<String, String> environment, Path home, List<Path> systemSockets, boolean windows) {
        String unfollowed = unfollowedSetup(environment, home, windows);
        if (unfollowed != null) {
            return new Verdict(true, unfollowed);
        }
        String dockerHost = environment.get("DOCKER_HOST");
        if (dockerHost != null && !dockerHost.isBlank()) {
            return pingHost(dockerHost.trim());
        }
        List<Path> sockets = new ArrayList<>(systemSockets);
        sockets.add(home.resolve(".docker/run/docker.sock"));
        sockets.add(home.resolve(".docker/desktop/docker.sock"));
        List<String> silent = new ArrayList<>();
        for (Path socket : sockets) {
            if (!Files.exists(socket)) {
                continue;
            }
            if (pingUnix(socket)) {
                return new Verdict(true, "a Docker engine answers at " + socket);
            }
            silent.add(socket.toString());
        }
        if (!silent.isEmpty()) {
            return new Verdict(
                    false,
                    "no container runtime answers (DOCKER_HOST is not set; nothing answers at "
                            + String.join(", ", silent) + ")");
        }
        return new Verdict(
                false,
                "no container runtime found (DOCKER_HOST is not set; no Docker socket at "
                        + String.join(", ", sockets.stream().map(Path::toString).toList()) + ")");
    }

    /** A set-up Testcontainers follows and this probe does not, or null. */
    private static @Nullable String unfollowedSetup(Map<String, String> environment, Path home, boolean windows) {
        if (windows) {
            return "Windows: Testcontainers looks for the engine";
        }
        for (String variable : List.of("TESTCONTAINERS_DOCKER_CLIENT_STRATEGY", "TC_HOST", "DOCKER_CONTEXT")) {
            String value = environment.get(variable);
            if (value != null && !value.isBlank()) {
                return variable + " is set: Testcontainers looks for the engine";
            }
        }
        Properties user = properties(home.resolve(".testcontainers.properties"));
        for (String key : List.of("docker.client.strategy", "tc.host", "docker.host")) {
            if (user.getProperty(key) != null) {
                return "~/.testcontainers.properties sets " + key + ": Testcontainers looks for the engine";
            }
        }
        Path dockerConfig = home.resolve(".docker/config.json");
        if (Files.isReadable(dockerConfig) && readOrEmpty(dockerConfig).contains("\"currentContext\"")) {
            return "~/.docker/config.json names a Docker context: Testcontainers looks for the engine";
        }
        return null;
    }

    private static Verdict pingHost(String dockerHost) {
        URI uri;
        try {
            uri = URI.create(dockerHost);
        } catch (IllegalArgumentException e) {
            return new Verdict(true, "DOCKER_HOST=" + dockerHost + ": Testcontainers reads it");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean answers;
        if (scheme.equals("unix") && uri.getPath() != null) {
            answers = pingUnix(Path.of(uri.getPath()));
        } else if (scheme.equals("tcp") && uri.getHost() != null && uri.getPort() > 0) {
            answers = pingTcp(uri.getHost(), uri.getPort());
        } else {
            return new Verdict(true, "DOCKER_HOST=" + dockerHost + ": Testcontainers reads it");
        }
        return answers
                ? new Verdict(true, "a Docker engine answers at DOCKER_HOST=" + dockerHost)
                : new Verdict(false, "no container runtime answers at DOCKER_HOST=" + dockerHost);
    }

    /** Whether an engine answers GET /_ping on this Unix socket within {@link #PING_TIMEOUT}. */
    static boolean pingUnix(Path socket) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
                Selector selector = Selector.open()) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap(PING));
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ);
            long deadline = System.nanoTime() + PING_TIMEOUT.toNanos();
            ByteBuffer buffer = ByteBuffer.allocate(1024);
            while (buffer.hasRemaining()) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0 || (selector.select(left) == 0 && System.nanoTime() >= deadline)) {
                    break;
                }
                selector.selectedKeys().clear();
                if (channel.read(buffer) < 0) {
                    break;
                }
            }
            return answersOk(new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Whether an engine answers GET /_ping on this TCP address within {@link #PING_TIMEOUT}. */
    static boolean pingTcp(String host, int port) {
        int timeout = (int) PING_TIMEOUT.toMillis();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), timeout);
            socket.setSoTimeout(timeout);
            OutputStream out = socket.getOutputStream();
            out.write(PING);
            out.flush();
            InputStream in = socket.getInputStream();
            return answersOk(new String(in.readNBytes(1024), StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** An HTTP 200 whose body is Docker's "OK". */
    private static boolean answersOk(String response) {
        return response.startsWith("HTTP/") && response.contains(" 200") && response.endsWith("OK");
    }

    private static Properties properties(Path file) {
        Properties properties = new Properties();
        if (Files.isReadable(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                properties.load(in);
            } catch (IOException | RuntimeException e) {
                // unreadable: as if absent; Testcontainers reports its own trouble with it
            }
        }
        return properties;
    }

    private static String readOrEmpty(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    }
}
