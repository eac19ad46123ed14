package io.lockkit.redis.launcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.IntSupplier;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Everything that touches Testcontainers. Only {@link RedisLauncher} calls it, and only after checking
 * that Testcontainers is on the class path, so a missing (optional) Testcontainers jar never causes
 * a {@link NoClassDefFoundError} anywhere else.
 *
 * <p>The container's port 6379 is published on a fixed free host port rather than a random one, so
 * that {@link ServerControl#restart(Duration)} (docker stop + start of the same container) keeps the
 * server's URI. Thread-safe.
 */
final class TestcontainersSupport {

    private static final int REDIS_PORT = 6379;

    private TestcontainersSupport() {}

    /** Whether a Docker engine answers; false on any failure to ask. */
    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /**
     * Starts a Redis container published on {@code port} (0: a free one) and waits until it answers PING.
     *
     * @throws IllegalStateException (or a Testcontainers exception) when the container does not start
     */
    static ServerControl start(
            String image, List<String> args, Duration startupTimeout, int port, IntSupplier freePorts) {
        int hostPort = port == 0 ? freePorts.getAsInt() : port;
        RedisContainer container = new RedisContainer(image, hostPort, args, startupTimeout);
        try {
            container.start();
            ContainerControl control =
                    new ContainerControl(container, new Endpoint(container.getHost(), hostPort, null, null, 0));
            control.awaitPing(startupTimeout);
            return control;
        } catch (RuntimeException e) {
            container.stop();
            throw e;
        }
    }

    private static final class RedisContainer extends GenericContainer<RedisContainer> {

        RedisContainer(String image, int hostPort, List<String> args, Duration startupTimeout) {
            super(DockerImageName.parse(image));
            addFixedExposedPort(hostPort, REDIS_PORT);
            List<String> command = new ArrayList<>(List.of(
                    "redis-server",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    // Connections arrive through Docker's proxy, not from loopback.
                    "--protected-mode",
                    "no",
                    "--enable-debug-command",
                    "yes"));
            command.addAll(args);
            withCommand(command.toArray(new String[0]));
            withStartupTimeout(startupTimeout);
        }
    }

    private static final class ContainerControl implements ServerControl {

        private final RedisContainer container;
        private final Endpoint endpoint;
        private boolean stopped;

        ContainerControl(RedisContainer container, Endpoint endpoint) {
            this.container = container;
            this.endpoint = endpoint;
        }

        @Override
        public Endpoint endpoint() {
            return endpoint;
        }

        @Override
        public OptionalLong pid() {
            return OptionalLong.empty();
        }

        @Override
        public synchronized void restart(Duration startupTimeout) {
            if (stopped) {
                throw new IllegalStateException("the Redis container at " + endpoint.redactedUri() + " was stopped");
            }
            String id = container.getContainerId();
            container.getDockerClient().stopContainerCmd(id).withTimeout(2).exec();
            container.getDockerClient().startContainerCmd(id).exec();
            awaitPing(startupTimeout);
        }

        void awaitPing(Duration startupTimeout) {
            if (!Readiness.await(endpoint, startupTimeout, connection -> true, () -> true)) {
                throw new IllegalStateException("the Redis container " + container.getContainerId() + " at "
                        + endpoint.redactedUri() + " did not answer PING within " + startupTimeout.toMillis()
                        + " ms; its log:\n" + container.getLogs());
            }
        }

        @Override
        public synchronized void stop() {
            if (!stopped) {
                stopped = true;
                container.stop();
            }
        }

        @Override
        public String describe() {
            return "container " + container.getDockerImageName();
        }
    }
}
