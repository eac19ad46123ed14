package io.lockkit.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A WildFly (standard or Preview) standalone server with its own {@code jboss.server.base.dir} and a
 * free port offset; deploys through the deployment scanner (scan interval lowered to 500 ms) and
 * its {@code .deployed} / {@code .failed} / {@code .undeployed} markers.
 */
final class WildFlyInstance extends ServerInstance {

    private static final String WAR = CONTEXT + ".war";
    private static final String BROKEN_WAR = CONTEXT + "-misconfigured.war";

    private final Path home;
    private final Path base;
    private final Path deployments;
    private final int offset;

    WildFlyInstance(ServerKind kind, String name) {
        super(kind, name);
        Path unpacked = Settings.work().resolve("dist-" + kind.id + "-" + kind.version());
        Processes.unzipOnce(kind.distribution(), unpacked);
        try (Stream<Path> children = Files.list(unpacked)) {
            this.home = children.filter(Files::isDirectory)
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no directory in " + unpacked));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.base = dir.resolve("standalone");
        Processes.copyTree(home.resolve("standalone"), base);
        this.deployments = base.resolve("deployments");
        Path config = base.resolve("configuration/standalone.xml");
        try {
            String xml = Files.readString(config);
            // MicroProfile Health as standalone-microprofile.xml has it (that configuration lacks EJB,
            // which the application uses): lock-cdi's readiness check then shows at /health/ready.
            Files.writeString(
                    config,
                    xml.replace("scan-interval=\"5000\"", "scan-interval=\"500\"")
                            .replace(
                                    "<extension module=\"org.wildfly.extension.health\"/>",
                                    "<extension module=\"org.wildfly.extension.health\"/>\n"
                                            + "        <extension module=\"org.wildfly.extension.microprofile.health-smallrye\"/>")
                            .replace(
                                    "<subsystem xmlns=\"urn:wildfly:health:1.0\" security-enabled=\"false\"/>",
                                    "<subsystem xmlns=\"urn:wildfly:health:1.0\" security-enabled=\"false\"/>\n"
                                            + "        <subsystem xmlns=\"urn:wildfly:microprofile-health-smallrye:3.0\" security-enabled=\"false\"/>"));
            if (kind == ServerKind.WILDFLY) {
                addLocksDataSource(config);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.offset = freePortOffset(8080, 9990, 8443, 9993);
    }

    /** The JNDI name of the PostgreSQL DataSource the WildFly run adds for lockkit.provider=jdbc. */
    static final String LOCKS_DATA_SOURCE = "java:jboss/datasources/LockkitLocksDS";

    /**
     * A DataSource on PostgreSQL ({@code itapp.locks-db.url}) through the driver deployed as
     * {@code postgresql.jar}, as an administrator adds one: the JDBC provider's server test locks in it.
     */
    private void addLocksDataSource(Path config) throws IOException {
        String xml = Files.readString(config);
        String anchor = "                <drivers>";
        Files.writeString(
                config,
                xml.replace(
                        anchor,
                        "                <datasource jndi-name=\"" + LOCKS_DATA_SOURCE
                                + "\" pool-name=\"LockkitLocksDS\">\n"
                                + "                    <connection-url>${itapp.locks-db.url}</connection-url>\n"
                                + "                    <driver>postgresql.jar</driver>\n"
                                + "                </datasource>\n"
                                + anchor));
        Path driver = Path.of(Settings.required("lockkit.it.postgresql.jar"));
        Files.copy(driver, deployments.resolve("postgresql.jar"), StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    void launch(Map<String, String> properties) {
        List<String> command = new ArrayList<>(List.of(
                "bash",
                home.resolve("bin/standalone.sh").toString(),
                "-Djboss.server.base.dir=" + base,
                "-Djboss.socket.binding.port-offset=" + offset,
                "-Djboss.bind.address=127.0.0.1",
                "-Djboss.bind.address.management=127.0.0.1"));
        command.addAll(systemProperties(properties));
        Map<String, String> env = Map.of(
                "JAVA_HOME", Settings.javaHome().toString(),
                "JAVA", Settings.javaHome().resolve("bin/java").toString(),
                "JAVA_OPTS", String.join(" ", jvmOptions()) + " -Djboss.modules.system.pkgs=org.jboss.byteman",
                "JBOSS_HOME", home.toString());
        process = Processes.start(command, dir, log(), env);
        copyWar(Settings.war(), WAR);
    }

    @Override
    void awaitApplication() {
        awaitMarker(WAR, START_TIMEOUT.plus(DEPLOY_TIMEOUT));
        awaitHealth(DEPLOY_TIMEOUT);
    }

    /** Waits for {@code .deployed} (returns) or {@code .failed} (throws with its content). */
    private void awaitMarker(String war, java.time.Duration timeout) {
        Path deployed = deployments.resolve(war + ".deployed");
        Path failed = deployments.resolve(war + ".failed");
        await(this + " deploys " + war)
                .atMost(timeout)
                .pollInterval(java.time.Duration.ofMillis(250))
                .until(() -> {
                    requireAlive();
                    return Files.exists(deployed) || Files.exists(failed);
                });
        if (Files.exists(failed)) {
            throw new AssertionError(this + ": " + war + " failed to deploy: " + read(failed));
        }
    }

    @Override
    void beginUndeploy() {
        try {
            Files.delete(deployments.resolve(WAR));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    void awaitUndeployed() {
        await(this + " undeploys " + WAR)
                .atMost(DEPLOY_TIMEOUT)
                .pollInterval(java.time.Duration.ofMillis(250))
                .until(() -> {
                    requireAlive();
                    return Files.exists(deployments.resolve(WAR + ".undeployed"))
                            && !Files.exists(deployments.resolve(WAR + ".deployed"));
                });
    }

    @Override
    boolean undeployLeavesNoApplication() {
        return true;
    }

    @Override
    void deployAgain() {
        copyWar(Settings.war(), WAR);
        awaitApplication();
    }

    @Override
    DeploymentOutcome deployWithConfig(String config) {
        Path variant = dir.resolve(BROKEN_WAR);
        try {
            Files.copy(Settings.war(), variant, StandardCopyOption.REPLACE_EXISTING);
            try (FileSystem zip = FileSystems.newFileSystem(URI.create("jar:" + variant.toUri()), Map.of())) {
                Path file = zip.getPath("WEB-INF/classes/META-INF/microprofile-config.properties");
                Files.createDirectories(file.getParent());
                Files.writeString(file, "config_ordinal=500\n" + config);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long before = logSize();
        copyWar(variant, BROKEN_WAR);
        Path deployed = deployments.resolve(BROKEN_WAR + ".deployed");
        Path failed = deployments.resolve(BROKEN_WAR + ".failed");
        await(this + " deploys " + BROKEN_WAR)
                .atMost(DEPLOY_TIMEOUT)
                .pollInterval(java.time.Duration.ofMillis(250))
                .until(() -> Files.exists(deployed) || Files.exists(failed));
        boolean ok = Files.exists(deployed);
        String text = logSince(before) + (ok ? "" : "\n.failed marker: " + read(failed));
        try {
            Files.delete(deployments.resolve(BROKEN_WAR));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await(this + " removes " + BROKEN_WAR)
                .atMost(DEPLOY_TIMEOUT)
                .pollInterval(java.time.Duration.ofMillis(250))
                .until(() -> !Files.exists(deployed) && !Files.exists(failed));
        return new DeploymentOutcome(ok, text);
    }

    @Override
    boolean deploysOtherApplications() {
        return true;
    }

    @Override
    void deployOther(Path war, String name) {
        copyWar(war, name + ".war");
        awaitMarker(name + ".war", DEPLOY_TIMEOUT);
    }

    @Override
    void undeployOther(String name) {
        try {
            Files.delete(deployments.resolve(name + ".war"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await(this + " undeploys " + name)
                .atMost(DEPLOY_TIMEOUT)
                .pollInterval(java.time.Duration.ofMillis(250))
                .until(() -> Files.exists(deployments.resolve(name + ".war.undeployed")));
    }

    private void copyWar(Path war, String as) {
        try {
            Path tmp = deployments.resolve(as + ".copying");
            Files.copy(war, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(
                    tmp, deployments.resolve(as), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            return "(" + e + ")";
        }
    }

    @Override
    String baseUrl() {
        return "http://127.0.0.1:" + (8080 + offset) + "/" + CONTEXT + "/api/";
    }

    /** Served on the management interface. */
    @Override
    java.util.Optional<URI> readinessUrl() {
        return java.util.Optional.of(URI.create("http://127.0.0.1:" + (9990 + offset) + "/health/ready"));
    }

    @Override
    long javaPid() {
        return process.toHandle()
                .descendants()
                .filter(handle ->
                        handle.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .findFirst()
                .orElseThrow(() -> new AssertionError(this + ": no java process under " + process.pid()))
                .pid();
    }
}
