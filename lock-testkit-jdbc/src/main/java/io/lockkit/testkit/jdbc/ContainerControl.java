package io.lockkit.testkit.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Everything that touches Testcontainers. Only {@link PostgresFixture} calls it, and only after
 * checking that Testcontainers is on the class path. The container's port 5432 is published on a
 * fixed free host port, so that stop and start (docker stop + start of the same container) keep the
 * URL. Thread-safe (calls are serialized).
 */
final class ContainerControl implements ServerControl {

    private static final int POSTGRES_PORT = 5432;
    private static final String PASSWORD = "lockkit";

    private final PostgresContainer container;
    private final int hostPort;
    private final String image;
    private final Duration startupTimeout;
    private boolean running;

    private ContainerControl(PostgresContainer container, int hostPort, String image, Duration startupTimeout) {
        this.container = container;
        this.hostPort = hostPort;
        this.image = image;
        this.startupTimeout = startupTimeout;
    }

    /** Whether a Docker engine answers; false on any failure to ask. */
    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Starts a PostgreSQL container and waits until it accepts connections. */
    static ContainerControl start(String image, Duration startupTimeout) {
        int hostPort = io.lockkit.testkit.FreePorts.freePort();
        PostgresContainer container = new PostgresContainer(image, hostPort);
        ContainerControl control = new ContainerControl(container, hostPort, image, startupTimeout);
        try {
            container.start();
            control.running = true;
            PostgresServer.awaitConnection(control.jdbcUrl(), startupTimeout);
            return control;
        } catch (RuntimeException e) {
            container.stop();
            throw e;
        }
    }

    @Override
    public String jdbcUrl() {
        return "jdbc:postgresql://" + container.getHost() + ":" + hostPort + "/postgres?user=postgres&password="
                + PASSWORD;
    }

    @Override
    public boolean owned() {
        return true;
    }

    @Override
    public OptionalLong pid() {
        return OptionalLong.empty();
    }

    @Override
    public synchronized void stop() {
        if (running) {
            container
                    .getDockerClient()
                    .stopContainerCmd(container.getContainerId())
                    .exec();
            running = false;
        }
    }

    @Override
    public synchronized void start() {
        if (!running) {
            container
                    .getDockerClient()
                    .startContainerCmd(container.getContainerId())
                    .exec();
            running = true;
            PostgresServer.awaitConnection(jdbcUrl(), startupTimeout);
        }
    }

    @Override
    public synchronized void close() {
        container.stop();
        running = false;
    }

    @Override
    public String describe() {
        return "container " + image;
    }

    private static final class PostgresContainer extends GenericContainer<PostgresContainer> {

        PostgresContainer(String image, int hostPort) {
            super(DockerImageName.parse(image));
            withEnv("POSTGRES_PASSWORD", PASSWORD);
            withExposedPorts(POSTGRES_PORT);
            setPortBindings(List.of(hostPort + ":" + POSTGRES_PORT));
        }
    }
}
