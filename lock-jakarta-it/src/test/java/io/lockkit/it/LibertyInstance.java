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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An Open Liberty server of its own (its user directory under the instance directory, the runtime
 * shared), with the Jakarta EE 10 features the application uses and {@code concurrent-3.0}, run in
 * the foreground ({@code server run}); deploys through {@code dropins} and reads the outcome from
 * {@code messages.log} (application started, not started, stopped).
 */
// Design notes.
// - The feature list is what a Jakarta EE 10 application of this kind enables, concurrent-3.0
//   included: with it, Liberty runs no managed thread of an application before the application has
//   started, which once made lockkit's start wait for itself.
// - The default DataSource (the application's persistence unit) is an in-memory H2 database; the
//   driver jar comes from the build (the module's test dependency on H2).
// - INFO lines (lockkit's included) go to logs/messages.log; console.log shows AUDIT and above.
final class LibertyInstance extends ServerInstance {

    private static final String SERVER = "it";
    private static final String WAR = CONTEXT + ".war";
    private static final String BROKEN = CONTEXT + "-misconfigured";
    private static final List<String> FEATURES = List.of(
            "cdi-4.0",
            "restfulWS-3.1",
            "jsonb-3.0",
            "mpConfig-3.1",
            "mpHealth-4.0",
            "persistence-3.1",
            "enterpriseBeansLite-4.0",
            "concurrent-3.0");

    private final Path home;
    private final Path server;
    private final Path dropins;
    private final int port;

    LibertyInstance(String name) {
        super(ServerKind.OPEN_LIBERTY, name);
        Path unpacked = Settings.work().resolve("dist-" + kind.id + "-" + kind.version());
        Processes.unzipOnce(kind.distribution(), unpacked);
        this.home = unpacked.resolve("wlp");
        this.server = dir.resolve("usr/servers").resolve(SERVER);
        this.dropins = server.resolve("dropins");
        this.port = io.lockkit.testkit.redis.RedisFixture.freePort();
    }

    @Override
    void launch(Map<String, String> properties) {
        try {
            Files.createDirectories(dropins);
            Path lib = Files.createDirectories(server.resolve("lib"));
            Path h2 = Path.of(Settings.required("lockkit.it.h2.jar"));
            Files.copy(h2, lib.resolve(h2.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            // Passwords go into server.xml as variables (Liberty's MicroProfile Config reads them),
            // not onto the command line.
            StringBuilder variables = new StringBuilder();
            Map<String, String> jvmProperties = new java.util.LinkedHashMap<>();
            properties.forEach((key, value) -> {
                if (key.endsWith("password")) {
                    variables
                            .append("  <variable name=\"")
                            .append(key)
                            .append("\" value=\"")
                            .append(value)
                            .append("\"/>\n");
                } else {
                    jvmProperties.put(key, value);
                }
            });
            StringBuilder features = new StringBuilder();
            FEATURES.forEach(f -> features.append("    <feature>").append(f).append("</feature>\n"));
            Files.writeString(
                    server.resolve("server.xml"),
                    "<server description=\"lockkit-it\">\n"
                            + "  <featureManager>\n" + features + "  </featureManager>\n"
                            + "  <httpEndpoint id=\"defaultHttpEndpoint\" host=\"127.0.0.1\" httpPort=\"" + port
                            + "\" httpsPort=\"-1\"/>\n"
                            + "  <applicationManager autoExpand=\"true\"/>\n"
                            + "  <applicationMonitor dropinsEnabled=\"true\" pollingRate=\"500ms\"/>\n"
                            + "  <library id=\"h2\"><fileset dir=\"${server.config.dir}/lib\" includes=\"h2-*.jar\"/></library>\n"
                            + "  <dataSource id=\"DefaultDataSource\">\n"
                            + "    <jdbcDriver libraryRef=\"h2\" javax.sql.DataSource=\"org.h2.jdbcx.JdbcDataSource\"/>\n"
                            + "    <properties URL=\"jdbc:h2:mem:lockkit-it;DB_CLOSE_DELAY=-1\"/>\n"
                            + "  </dataSource>\n"
                            + variables
                            + "</server>\n");
            List<String> options = new ArrayList<>(jvmOptions());
            options.addAll(systemProperties(jvmProperties));
            Files.write(server.resolve("jvm.options"), options);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        copyWar(Settings.war(), WAR);
        Map<String, String> env = Map.of(
                "JAVA_HOME", Settings.javaHome().toString(),
                "WLP_USER_DIR", dir.resolve("usr").toString(),
                "WLP_OUTPUT_DIR", dir.resolve("usr/servers").toString());
        process = Processes.start(
                List.of("bash", home.resolve("bin/server").toString(), "run", SERVER),
                dir,
                dir.resolve("console.log"),
                env);
    }

    @Override
    Path log() {
        return server.resolve("logs/messages.log");
    }

    @Override
    void awaitApplication() {
        awaitOutcome(CONTEXT, 0, START_TIMEOUT.plus(DEPLOY_TIMEOUT)).ifPresent(failure -> {
            throw new AssertionError(this + ": " + CONTEXT + " did not start: " + failure + "\n" + logTail(60));
        });
        awaitHealth(DEPLOY_TIMEOUT);
    }

    /**
     * Waits until the log written since {@code offset} says whether {@code app} started; empty when it
     * did, else the line that says it did not.
     */
    private Optional<String> awaitOutcome(String app, long offset, Duration timeout) {
        String started = "CWWKZ0001I: Application " + app + " started";
        String updated = "CWWKZ0003I: The application " + app + " updated";
        String notStarted = "CWWKZ0012I: The application " + app + " was not started";
        String failed = "CWWKZ0002E: An exception occurred while starting the application " + app + ".";
        String[] outcome = new String[1];
        await(this + " starts " + app)
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    requireAlive();
                    for (String line : logSince(offset).split("\n")) {
                        if (line.contains(started) || line.contains(updated)) {
                            outcome[0] = "";
                            return true;
                        }
                        if (line.contains(notStarted) || line.contains(failed)) {
                            outcome[0] = line;
                            return true;
                        }
                    }
                    return false;
                });
        return outcome[0].isEmpty() ? Optional.empty() : Optional.of(outcome[0]);
    }

    private long undeployFrom;

    @Override
    void beginUndeploy() {
        undeployFrom = logSize();
        try {
            Files.delete(dropins.resolve(WAR));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    void awaitUndeployed() {
        awaitStopped(CONTEXT, undeployFrom);
    }

    private void awaitStopped(String app, long offset) {
        String stopped = "CWWKZ0009I: The application " + app + " has stopped successfully";
        await(this + " stops " + app)
                .atMost(DEPLOY_TIMEOUT)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    requireAlive();
                    return logSince(offset).contains(stopped);
                });
    }

    @Override
    boolean undeployLeavesNoApplication() {
        return true;
    }

    @Override
    void deployAgain() {
        long offset = logSize();
        copyWar(Settings.war(), WAR);
        awaitOutcome(CONTEXT, offset, DEPLOY_TIMEOUT).ifPresent(failure -> {
            throw new AssertionError(this + ": " + CONTEXT + " did not start again: " + failure);
        });
        awaitHealth(DEPLOY_TIMEOUT);
    }

    @Override
    DeploymentOutcome deployWithConfig(String config) {
        Path variant = dir.resolve(BROKEN + ".war");
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
        copyWar(variant, BROKEN + ".war");
        Optional<String> failure = awaitOutcome(BROKEN, before, DEPLOY_TIMEOUT);
        String text = logSince(before);
        long removal = logSize();
        try {
            Files.delete(dropins.resolve(BROKEN + ".war"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (failure.isEmpty()) {
            awaitStopped(BROKEN, removal);
        }
        return new DeploymentOutcome(failure.isEmpty(), text);
    }

    @Override
    boolean deploysOtherApplications() {
        return true;
    }

    @Override
    void deployOther(Path war, String name) {
        long offset = logSize();
        copyWar(war, name + ".war");
        awaitOutcome(name, offset, DEPLOY_TIMEOUT).ifPresent(failure -> {
            throw new AssertionError(this + ": " + name + " did not start: " + failure);
        });
    }

    @Override
    void undeployOther(String name) {
        long offset = logSize();
        try {
            Files.delete(dropins.resolve(name + ".war"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        awaitStopped(name, offset);
    }

    private void copyWar(Path war, String as) {
        try {
            Path tmp = dir.resolve(as + ".copying");
            Files.copy(war, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, dropins.resolve(as), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    String baseUrl() {
        return "http://127.0.0.1:" + port + "/" + CONTEXT + "/api/";
    }

    @Override
    Optional<URI> readinessUrl() {
        return Optional.of(URI.create("http://127.0.0.1:" + port + "/health/ready"));
    }

    @Override
    long javaPid() {
        // bin/server run execs java: the process started is the JVM itself.
        return java.util.stream.Stream.concat(
                        java.util.stream.Stream.of(process.toHandle()),
                        process.toHandle().descendants())
                .filter(handle ->
                        handle.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .findFirst()
                .orElseThrow(() -> new AssertionError(this + ": no java process at or under " + process.pid()))
                .pid();
    }
}
