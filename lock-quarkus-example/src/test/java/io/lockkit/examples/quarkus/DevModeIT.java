package io.lockkit.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * {@code mvn quarkus:dev} on a copy of this example (run by failsafe, after {@code package}): the
 * application starts on the extension's Dev Services Redis, a source change is live-reloaded on the
 * next request, and the reloaded application uses the same Redis server; when dev mode ends, that
 * server stops. The inner build is offline, reads this build's lockkit artifacts from a repository
 * the POM prepares, and everything else from the outer build's local repository.
 */
@Tag("first-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("mvn quarkus:dev: Dev Services Redis, and a live reload keeps the same Redis")
class DevModeIT {

    private static final Pattern LISTENING = Pattern.compile("Listening on: (http://\\S+?):(\\d+)");
    private static final Pattern DEV_SERVICES =
            Pattern.compile("lockkit Dev Services: Redis \\S+ from (.+?) at (redis://\\S+) ");

    private static Path property(String name) {
        String value = System.getProperty(name);
        assertThat(value)
                .as("system property %s (set by the POM's failsafe configuration)", name)
                .isNotBlank();
        return Paths.get(value);
    }

    @Test
    @DisplayName(
            "the app starts on the Dev Services Redis; after a live reload: new code, same server, same data; stopped at exit")
    void liveReloadKeepsTheDevServicesRedis() throws Exception {
        Path dir = property("lockkit.devmode.dir");
        Path app = copyOfTheExample(dir.resolve("app"));
        Path log = dir.resolve("dev-mode.log");
        List<String> command = new ArrayList<>(List.of(
                property("lockkit.devmode.maven").toString(),
                "-B",
                "-o", // everything comes from the two local repositories
                "-Dmaven.repo.local=" + property("lockkit.devmode.repository"),
                "-Dmaven.repo.local.tail=" + property("lockkit.devmode.repository.tail"),
                "quarkus:dev",
                "-Ddebug=false", // no debug port: several builds may share the machine
                "-Dquarkus.http.port=0",
                "-Dquarkus.console.enabled=false",
                "-Dquarkus.analytics.disabled=true"));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(app.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().remove("MAVEN_OPTS");
        long started = System.nanoTime();
        Process maven = builder.start();
        List<ProcessHandle> spawned = new ArrayList<>();
        try {
            String redisUri;
            try {
                Matcher listening = await("dev mode listening (" + log + ")")
                        .atMost(Duration.ofMinutes(5))
                        .pollInterval(Duration.ofMillis(500))
                        .failFast("mvn quarkus:dev ended: see " + log, () -> !maven.isAlive())
                        .until(() -> find(log, LISTENING), Optional::isPresent)
                        .orElseThrow();
                URI base = URI.create(
                        listening.group(1).replace("localhost", "127.0.0.1") + ":" + listening.group(2) + "/");
                Matcher devServices = find(log, DEV_SERVICES).orElseThrow();
                redisUri = devServices.group(2);
                assertThat(devServices.group(1)).isEqualTo(expectedSource());
                assertThat(ready(base)).as("the application's lock backend").contains(redisUri + ", prefix inventory]");
                assertThat(post(base, "stock/dev/reserve")).isEqualTo("1");
                String runId;
                try (RedisClient redis = RedisClient.create(URI.create(redisUri))) {
                    runId = runId(redis);
                    redis.set("dev-mode-it:before-reload", "kept");
                }

                Path source = app.resolve("src/main/java/io/lockkit/examples/quarkus/StockCounterResource.java");
                String code = Files.readString(source, StandardCharsets.UTF_8);
                assertThat(code).contains("reserved = before + 1;");
                Files.writeString(source, code.replace("reserved = before + 1;", "reserved = before + 10;"));

                // Dev mode looks for changes when a request comes, at most every few seconds: readiness
                // checks (which change nothing) until one of them has set off the reload
                await("a live reload (" + log + ")")
                        .atMost(Duration.ofMinutes(3))
                        .pollInterval(Duration.ofMillis(500))
                        .failFast("mvn quarkus:dev ended: see " + log, () -> !maven.isAlive())
                        .until(() -> {
                            ready(base);
                            return Files.readString(log, StandardCharsets.UTF_8).contains("Live reload total time");
                        });
                assertThat(post(base, "stock/dev/reserve"))
                        .as("the reloaded application: its new code, its own counter")
                        .isEqualTo("10");
                assertThat(ready(base)).contains(redisUri + ", prefix inventory]");
                try (RedisClient redis = RedisClient.create(URI.create(redisUri))) {
                    assertThat(runId(redis))
                            .as("the same server process (INFO's run_id)")
                            .isEqualTo(runId);
                    assertThat(redis.get("dev-mode-it:before-reload")).isEqualTo("kept");
                }
                String output = Files.readString(log, StandardCharsets.UTF_8);
                assertThat(DEV_SERVICES.matcher(output).results().count())
                        .as("Dev Services started one Redis")
                        .isEqualTo(1);
            } finally {
                spawned.addAll(stop(maven));
                System.out.printf(
                        "DevModeIT: mvn quarkus:dev ran %d s (log: %s)%n",
                        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), log);
            }
            await("the Dev Services Redis stopped with dev mode")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> !answers(redisUri));
            await("every process dev mode started ended")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> spawned.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            spawned.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** The example's POM and main sources, and the build's JVM options (javac's exports for Error Prone). */
    private static Path copyOfTheExample(Path app) throws IOException {
        deleteTree(app);
        Path project = property("lockkit.devmode.project");
        copyTree(project.resolve("src/main"), app.resolve("src/main"));
        Files.copy(project.resolve("pom.xml"), app.resolve("pom.xml"));
        Path jvmConfig = project.resolveSibling(".mvn").resolve("jvm.config");
        if (Files.exists(jvmConfig)) {
            Files.createDirectories(app.resolve(".mvn"));
            Files.copy(jvmConfig, app.resolve(".mvn/jvm.config"));
        }
        return app;
    }

    /** With no container runtime: the PATH's redis-server, else the one bundled with lockkit's Redis launcher. */
    private static String expectedSource() {
        String path = System.getenv("PATH");
        boolean onPath = path != null
                && Stream.of(path.split(File.pathSeparator))
                        .map(dir -> Paths.get(dir, "redis-server"))
                        .anyMatch(Files::isExecutable);
        return onPath
                ? "the redis-server on the PATH"
                : "the redis-server binary bundled with lockkit's Redis launcher";
    }

    /**
     * Ends dev mode as a developer's Ctrl+C ends the application: SIGTERM to the dev-mode JVM (Maven's
     * child; Quarkus' shutdown stops the application, then the Dev Services), then Maven; by pid.
     * Returns every process Maven had started (the JVM, the Redis server), for the caller to check.
     */
    private static List<ProcessHandle> stop(Process maven) throws InterruptedException {
        List<ProcessHandle> spawned = maven.descendants().toList();
        List<ProcessHandle> jvms = maven.children().toList();
        jvms.forEach(ProcessHandle::destroy);
        for (ProcessHandle jvm : jvms) {
            try {
                jvm.onExit().get(60, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                jvm.destroyForcibly();
            }
        }
        maven.destroy();
        if (!maven.waitFor(30, TimeUnit.SECONDS)) {
            maven.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        return spawned;
    }

    private static Optional<Matcher> find(Path log, Pattern pattern) {
        try {
            if (!Files.exists(log)) {
                return Optional.empty();
            }
            Matcher m = pattern.matcher(Files.readString(log, StandardCharsets.UTF_8));
            return m.find() ? Optional.of(m) : Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String ready(URI base) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve("q/health/ready")).GET(), true);
    }

    private static String post(URI base, String path) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).POST(HttpRequest.BodyPublishers.noBody()), false);
    }

    private static String send(HttpRequest.Builder request, boolean anyStatus) throws Exception {
        // a live reload happens within the first request after a change: a generous timeout
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(request.timeout(Duration.ofMinutes(3)).build(), HttpResponse.BodyHandlers.ofString());
        if (!anyStatus) {
            assertThat(response.statusCode()).as("%s", response.body()).isEqualTo(200);
        }
        return response.body();
    }

    private static String runId(RedisClient redis) {
        return redis.info("server")
                .lines()
                .filter(line -> line.startsWith("run_id:"))
                .findFirst()
                .orElseThrow()
                .trim();
    }

    private static boolean answers(String uri) {
        try (RedisClient redis = RedisClient.create(URI.create(uri))) {
            return "PONG".equals(redis.ping());
        } catch (JedisConnectionException e) {
            return false;
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
