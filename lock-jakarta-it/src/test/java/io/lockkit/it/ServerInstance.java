package io.lockkit.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One application server process with the test application deployed, as the tests drive it: start,
 * undeploy, deploy again, deploy a misconfigured copy, stop. Not thread-safe: one test thread drives
 * an instance. Its console output goes to {@link #log()} under the module's target directory.
 */
abstract class ServerInstance implements AutoCloseable {

    static final String CONTEXT = "lockkit-it";
    static final Duration START_TIMEOUT = Duration.ofMinutes(4);
    static final Duration DEPLOY_TIMEOUT = Duration.ofMinutes(3);

    final ServerKind kind;
    final String name;
    final Path dir;
    final Http http;
    Process process;

    ServerInstance(ServerKind kind, String name) {
        this.kind = kind;
        this.name = name;
        this.dir = Settings.work().resolve(kind.id + "-" + name);
        this.http = new Http(this);
        Processes.deleteTree(dir);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ServerInstance of(ServerKind kind, String name) {
        return switch (kind) {
            case WILDFLY, WILDFLY_PREVIEW -> new WildFlyInstance(kind, name);
            case PAYARA_MICRO -> new PayaraMicroInstance(name);
            case PAYARA_SERVER, GLASSFISH -> new GlassFishInstance(kind, name);
            case OPEN_LIBERTY -> new LibertyInstance(name);
        };
    }

    /**
     * Keeps {@code secret} in the server's credential store under {@code alias}, where the
     * application's MicroProfile Config finds it as the property {@code alias}; before {@link #launch}.
     */
    void passwordAlias(String alias, String secret) {
        throw new UnsupportedOperationException(this + " has no credential store in these tests");
    }

    /** Starts the process (system properties {@code properties}) and returns at once. */
    abstract void launch(Map<String, String> properties);

    /** Waits until the server answers and the application is deployed and answers. */
    abstract void awaitApplication();

    /** Starts removing the application and returns at once (Payara Micro: starts a redeployment, its only runtime undeploy). */
    abstract void beginUndeploy();

    /** Waits until {@link #beginUndeploy()} finished: the application is gone (WildFly) or replaced (Payara Micro). */
    abstract void awaitUndeployed();

    /** Whether {@link #awaitUndeployed()} leaves the server without the application (false: with a new deployment). */
    abstract boolean undeployLeavesNoApplication();

    /** Deploys the application again after {@link #awaitUndeployed()} and waits for it; a no-op where undeploy redeploys. */
    abstract void deployAgain();

    /**
     * Deploys a copy of the application whose {@code META-INF/microprofile-config.properties} holds
     * {@code config} (ordinal 500: above system properties) and reports what happened, then removes it.
     * Where the deployment failed, the server may be left without the application (Payara Micro).
     */
    abstract DeploymentOutcome deployWithConfig(String config);

    /**
     * Deploys a control application (the test application's JAX-RS root and {@code PingResource}
     * only: no lockkit, no CDI beans, no persistence unit), calls it, undeploys it and returns how
     * many class loaders still hold {@code PingResource} after GC, minus how many did before; empty
     * where the server cannot deploy a second application at runtime.
     */
    java.util.OptionalInt controlApplicationLoadersLeft() {
        if (!deploysOtherApplications()) {
            return java.util.OptionalInt.empty();
        }
        String control = CONTEXT + "-control";
        Path war = dir.resolve(control + ".war");
        List<String> keep = List.of(
                "WEB-INF/classes/io/lockkit/it/app/ItApplication.class",
                "WEB-INF/classes/io/lockkit/it/app/SharedState.class",
                "WEB-INF/classes/io/lockkit/it/app/PingResource.class");
        try (java.nio.file.FileSystem source = java.nio.file.FileSystems.newFileSystem(Settings.war());
                java.nio.file.FileSystem target = java.nio.file.FileSystems.newFileSystem(
                        URI.create("jar:" + war.toUri()), Map.of("create", "true"))) {
            for (String entry : keep) {
                Path to = target.getPath(entry);
                Files.createDirectories(to.getParent());
                Files.copy(source.getPath(entry), to);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String className = "io.lockkit.it.app.PingResource";
        int before = Inspect.loadedCopies(javaPid(), className);
        deployOther(war, control);
        String url = baseUrl().replace("/" + CONTEXT + "/", "/" + control + "/") + "ping";
        await(this + " control application answers").atMost(DEPLOY_TIMEOUT).until(() -> Http.answers(url));
        undeployOther(control);
        return java.util.OptionalInt.of(Inspect.loadedCopies(javaPid(), className) - before);
    }

    /**
     * A copy of the application's WAR, named {@code name}.war in this instance's directory, whose
     * {@code META-INF/microprofile-config.properties} holds {@code config} (ordinal 500: above
     * system properties).
     */
    Path variantWar(String name, String config) {
        Path variant = dir.resolve(name + ".war");
        try {
            Files.copy(Settings.war(), variant, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            try (java.nio.file.FileSystem zip =
                    java.nio.file.FileSystems.newFileSystem(URI.create("jar:" + variant.toUri()), Map.of())) {
                Path file = zip.getPath("WEB-INF/classes/META-INF/microprofile-config.properties");
                Files.createDirectories(file.getParent());
                Files.writeString(file, "config_ordinal=500\n" + config);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return variant;
    }

    /** Whether {@link #deployOther} and {@link #undeployOther} work here. */
    boolean deploysOtherApplications() {
        return false;
    }

    /** Deploys {@code war} as application {@code name} (context root too) and waits until it is deployed. */
    void deployOther(Path war, String name) {
        throw new UnsupportedOperationException(this + " deploys no other application");
    }

    /** Undeploys application {@code name} and waits until it is gone. */
    void undeployOther(String name) {
        throw new UnsupportedOperationException(this + " deploys no other application");
    }

    /** The base URL of the application's JAX-RS resources, ending in a slash. */
    abstract String baseUrl();

    /** The server's MicroProfile Health readiness URL, or empty where the tests do not enable MicroProfile Health. */
    java.util.Optional<URI> readinessUrl() {
        return java.util.Optional.empty();
    }

    /** The server's log, where lockkit's INFO lines go (the console output for most servers). */
    Path log() {
        return dir.resolve("console.log");
    }

    /** The pid of the server's JVM. */
    abstract long javaPid();

    /** The log written since {@code offset} bytes. */
    String logSince(long offset) {
        try {
            if (!Files.exists(log())) {
                return "";
            }
            byte[] all = Files.readAllBytes(log());
            return new String(
                    all,
                    (int) Math.min(offset, all.length),
                    (int) Math.max(0, all.length - offset),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    long logSize() {
        try {
            return Files.exists(log()) ? Files.size(log()) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last lines of the log, for failure messages. */
    String logTail(int lines) {
        String[] all = logSince(0).split("\n");
        return String.join("\n", List.of(all).subList(Math.max(0, all.length - lines), all.length));
    }

    /** The last line of the log's last 400 lines that names an exception or error class, or "". */
    String lastException() {
        String[] lines = logTail(400).split("\n");
        java.util.regex.Pattern pattern = java.util.regex.Pattern.compile("[\\w.$]+(Exception|Error)(: .*)?$");
        for (int i = lines.length - 1; i >= 0; i--) {
            String line = lines[i].strip();
            if (!line.startsWith("at ") && pattern.matcher(line).find()) {
                return line.length() <= 400 ? line : line.substring(0, 400) + "...";
            }
        }
        return "";
    }

    void requireAlive() {
        if (process != null && !process.isAlive()) {
            throw new AssertionError(this + " exited with " + process.exitValue() + "; log tail:\n" + logTail(60));
        }
    }

    /** The health endpoint's answer ("up instance deployment-id ..."), when it answers 200. */
    Optional<String> health() {
        requireAlive();
        return http.tryGet("health");
    }

    /** The id of the deployment that answers now. */
    String deploymentId() {
        String health = health().orElseThrow(() -> new AssertionError(this + ": the application does not answer"));
        return health.split(" ")[2];
    }

    void awaitHealth(Duration timeout) {
        await(this + " application up")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> health().isPresent());
    }

    @Override
    public void close() {
        if (process != null) {
            Processes.stopTree(process.toHandle());
        }
    }

    @Override
    public String toString() {
        return kind.id + "-" + name;
    }

    /** A port offset such that nobody listens on any of {@code basePorts} plus it at the moment. */
    static int freePortOffset(int... basePorts) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int offset = ThreadLocalRandom.current().nextInt(1000, 20000);
            boolean free = true;
            for (int base : basePorts) {
                free &= isFree(base + offset);
            }
            if (free) {
                return offset;
            }
        }
        throw new IllegalStateException("no free port offset found");
    }

    static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static List<String> systemProperties(Map<String, String> properties) {
        List<String> args = new ArrayList<>();
        properties.forEach((key, value) -> args.add("-D" + key + "=" + value));
        return args;
    }

    /**
     * JVM options every server gets: small heap, serial GC and C1 only (two cores, two servers);
     * java.lang opened for the application's ThreadLocal probe ({@code /api/thread-locals}).
     */
    static List<String> jvmOptions() {
        return List.of(
                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "-Xms64m",
                "-Xmx512m",
                "-XX:MaxMetaspaceSize=512m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Djava.net.preferIPv4Stack=true",
                "-Djava.awt.headless=true");
    }

    /** What became of a deployment. */
    record DeploymentOutcome(boolean deployed, String log) {}
}
