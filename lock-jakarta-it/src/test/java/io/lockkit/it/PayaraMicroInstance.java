package io.lockkit.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Payara Micro instance ({@code --nocluster}, its own root and unpack directories) running the
 * application as an exploded WAR. Payara Micro has no runtime undeploy; it redeploys an exploded WAR
 * when the {@code .reload} file in its root changes, which undeploys the old deployment first: that
 * is what {@link #beginUndeploy()} does here.
 */
final class PayaraMicroInstance extends ServerInstance {

    private final Path app;
    private final int port;

    PayaraMicroInstance(String name) {
        super(ServerKind.PAYARA_MICRO, name);
        this.app = dir.resolve("app").resolve(CONTEXT);
        Processes.unzipOnce(Settings.war(), app);
        this.port = io.lockkit.testkit.redis.RedisFixture.freePort();
    }

    @Override
    void launch(Map<String, String> properties) {
        List<String> command = new ArrayList<>();
        command.add(Settings.javaHome().resolve("bin/java").toString());
        command.addAll(jvmOptions());
        command.addAll(systemProperties(properties));
        command.addAll(List.of(
                "-jar",
                kind.distribution().toString(),
                "--nocluster",
                "--disablephonehome",
                "--hotdeploy",
                "--port",
                Integer.toString(port),
                "--rootdir",
                dir.resolve("root").toString(),
                "--unpackdir",
                dir.resolve("unpack").toString(),
                "--contextroot",
                CONTEXT,
                "--deploy",
                app.toString()));
        try {
            Files.createDirectories(dir.resolve("root"));
            Files.createDirectories(dir.resolve("unpack"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        process = Processes.start(command, dir, log(), Map.of());
    }

    @Override
    void awaitApplication() {
        awaitHealth(START_TIMEOUT);
    }

    private String before;
    private long logBefore;

    @Override
    void beginUndeploy() {
        before = deploymentId();
        logBefore = logSize();
        touchReload();
    }

    private void touchReload() {
        Path reload = app.resolve(".reload");
        try {
            if (!Files.exists(reload)) {
                Files.createFile(reload);
            }
            Files.setLastModifiedTime(reload, FileTime.from(Instant.now()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    void awaitUndeployed() {
        await(this + " redeploys")
                .atMost(DEPLOY_TIMEOUT)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> health().map(h -> !h.split(" ")[2].equals(before)).orElse(false));
    }

    @Override
    boolean undeployLeavesNoApplication() {
        return false;
    }

    @Override
    void deployAgain() {
        // The redeployment in awaitUndeployed() already deployed it.
    }

    @Override
    DeploymentOutcome deployWithConfig(String config) {
        Path file = app.resolve("WEB-INF/classes/META-INF/microprofile-config.properties");
        String id = deploymentId();
        long offset = logSize();
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, "config_ordinal=500\n" + config);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        touchReload();
        // Deployed: a new deployment answers. Failed: the old one is gone and the log says why.
        await(this + " redeploys with " + file.getFileName())
                .atMost(DEPLOY_TIMEOUT)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    Optional<String> health = health();
                    if (health.isPresent()) {
                        return !health.get().split(" ")[2].equals(id);
                    }
                    String log = logSince(offset);
                    return log.contains("Exception while loading the app")
                            || log.contains("Deployment failed")
                            || log.contains("Exception during lifecycle processing");
                });
        Optional<String> health = health();
        boolean deployed = health.isPresent() && !health.get().split(" ")[2].equals(id);
        String log = logSince(offset);
        try {
            Files.delete(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (deployed) {
            touchReload();
            awaitHealth(DEPLOY_TIMEOUT);
        }
        // After a failed deployment Payara Micro no longer watches the application's .reload file:
        // the application stays undeployed, so the tests run this last.
        return new DeploymentOutcome(deployed, log);
    }

    @Override
    String baseUrl() {
        return "http://127.0.0.1:" + port + "/" + CONTEXT + "/api/";
    }

    /** Payara Micro serves MicroProfile Health on its HTTP port. */
    @Override
    java.util.Optional<java.net.URI> readinessUrl() {
        return java.util.Optional.of(java.net.URI.create("http://127.0.0.1:" + port + "/health/ready"));
    }

    @Override
    long javaPid() {
        return process.pid();
    }
}
