package io.lockkit.examples.spring;

import static org.awaitility.Awaitility.await;

import io.lockkit.testkit.redis.RedisFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged application ({@code java -jar}) running as several instances, each on a free port,
 * against one Redis and one shared directory; stopped by pid, also when the test JVM exits early.
 */
final class Instances implements AutoCloseable {

    private final Path dir;
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Map<String, Integer> ports = new LinkedHashMap<>();
    private final Thread killer = new Thread(this::kill, "spring-example-it-stop");

    private Instances(Path dir) {
        this.dir = dir;
    }

    /**
     * Starts one instance per name against {@code redisUri} and waits until each serves HTTP (its
     * "ready" journal line gives the port).
     *
     * @throws AssertionError when an instance exits or is not ready within three minutes (the
     *     instances started so far are stopped)
     */
    static Instances start(List<String> names, String redisUri, Path dir) throws IOException {
        Instances instances = new Instances(dir);
        Runtime.getRuntime().addShutdownHook(instances.killer);
        try {
            for (String name : names) {
                instances.processes.put(name, instances.launch(name, redisUri));
            }
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(200))
                    .until(instances::allReady);
            return instances;
        } catch (RuntimeException | Error e) {
            instances.close();
            throw e;
        }
    }

    private Process launch(String name, String redisUri) throws IOException {
        List<String> command = List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx128m",
                "-jar",
                app().toString(),
                "--lockkit.redis.uri=" + redisUri,
                "--server.port=0",
                "--example.instance=" + name,
                "--example.data-dir=" + dir.toAbsolutePath());
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log(name).toFile());
        // the fixture's own variable (which Redis the test starts), not a key of the application: lock-spring
        // would warn that it knows no such lockkit key
        builder.environment().remove(RedisFixture.SOURCES_ENVIRONMENT_VARIABLE);
        return builder.start();
    }

    /** The packaged application, built by {@code mvn package}. */
    static Path app() {
        return Paths.get(System.getProperty("lockkit.example.app", "target/lock-spring-example.jar"));
    }

    /** Where instance {@code name} writes its output. */
    Path log(String name) {
        return dir.resolve(name + ".log");
    }

    private boolean allReady() throws IOException {
        for (Map.Entry<String, Process> instance : processes.entrySet()) {
            if (!instance.getValue().isAlive()) {
                throw new AssertionError("instance " + instance.getKey() + " exited with "
                        + instance.getValue().exitValue() + "; its output:\n" + tail(instance.getKey()));
            }
        }
        for (Journal.Line ready : Journal.of(Journal.read(dir, names()), "ready")) {
            ports.put(ready.instance(), (int) ready.value());
        }
        return ports.keySet().containsAll(processes.keySet());
    }

    /** The last lines of instance {@code name}'s output. */
    String tail(String name) throws IOException {
        List<String> lines = Files.readAllLines(log(name), StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    List<String> names() {
        return new ArrayList<>(processes.keySet());
    }

    /** The base URL of instance {@code name}, {@code http://127.0.0.1:<port>}. */
    String url(String name) {
        Integer port = ports.get(name);
        if (port == null || port <= 0) {
            throw new IllegalStateException("instance " + name + " serves no HTTP port: " + ports);
        }
        return "http://127.0.0.1:" + port;
    }

    /** Whether every instance still runs. */
    boolean allAlive() {
        return processes.values().stream().allMatch(Process::isAlive);
    }

    /** Stops the instances (SIGTERM to their pids: Boot's graceful shutdown), forcibly after 30 s. */
    @Override
    public void close() {
        for (Process p : processes.values()) {
            p.destroy();
        }
        try {
            for (Process p : processes.values()) {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            kill();
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) anyway
        }
    }

    /** The shutdown hook's last resort: SIGKILL to the pids this test started. */
    private void kill() {
        processes.values().forEach(Process::destroyForcibly);
    }
}
