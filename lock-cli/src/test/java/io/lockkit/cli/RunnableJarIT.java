package io.lockkit.cli;

import static io.lockkit.cli.CliSupport.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shipped artifact: {@code java -jar target/lockkit-cli.jar} in a JVM of its own (after
 * {@code package}, run by failsafe), against a real Redis and a holder in this JVM.
 */
@DisplayName("lockkit-cli.jar runs with java -jar")
class RunnableJarIT {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private record Run(int code, String out, String err) {}

    private static Path jar() {
        return Paths.get(System.getProperty("lockkit.cli.jar", "target/lockkit-cli.jar"));
    }

    private static Run java(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-jar",
                jar().toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("lockkit-cli", ".out");
        Path err = Files.createTempFile("lockkit-cli", ".err");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            p.getOutputStream().close(); // no input, and no console: release without --yes must refuse
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("java -jar " + List.of(args) + " did not end within 60 s");
            }
            return new Run(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    @Test
    @DisplayName(
            "the jar lists, shows and force-releases a lock held by this JVM, whose holder hears of the loss; exit codes as documented")
    void jarRuns(RedisServer redis) throws Exception {
        List<LockLostException> lost = new CopyOnWriteArrayList<>();
        String prefix = CliSupport.uniquePrefix();
        try (DistributedLockFactory holders = DistributedLockFactory.builder(JedisLockProvider.create(redis.uri()))
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofSeconds(1))
                        .build())
                .onLockLost(lost::add)
                .build()) {
            holders.acquire(prefix + "job", LockOptions.noWait());

            Run help = java("--help");
            assertThat(help.code()).as("%s", help).isZero();
            assertThat(help.out()).contains("Exit codes:");
            assertThat(java("--version").out()).startsWith("lockkit ");

            Run list = java("--uri", redis.uri(), "--json", "list", prefix);
            assertThat(list.code()).as("%s", list).isZero();
            assertThat(json(list.out()).getAsJsonObject().get("count").getAsLong())
                    .isEqualTo(1);
            assertThat(list.err()).as("no logging noise on stderr").isEmpty();

            Run refused = java("--uri", redis.uri(), "release", prefix + "job", "--force");
            assertThat(refused.code()).as("%s", refused).isEqualTo(LockkitCli.EXIT_REFUSED);
            Run released = java("--uri", redis.uri(), "release", prefix + "job", "--force", "--yes");
            assertThat(released.code()).as("%s", released).isZero();
            await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
            assertThat(java("--uri", redis.uri(), "show", prefix + "job").code())
                    .isEqualTo(LockkitCli.EXIT_NOT_HELD);
            assertThat(java("--uri", redis.uri(), "show").code()).isEqualTo(LockkitCli.EXIT_USAGE);
        }
    }

    @Test
    @DisplayName("the jar holds the CLI and its run-time dependencies, and no test classes")
    void jarContents() throws IOException {
        try (JarFile jar = new JarFile(jar().toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo(LockkitCli.class.getName());
            assertThat(jar.getEntry("io/lockkit/cli/LockkitCli.class")).isNotNull();
            assertThat(jar.getEntry("io/lockkit/jedis/JedisLockProvider.class")).isNotNull();
            assertThat(jar.getEntry("picocli/CommandLine.class")).isNotNull();
            assertThat(jar.getEntry("io/lockkit/cli/HolderMain.class")).isNull();
            assertThat(jar.getEntry("io/lockkit/testkit/redis/RedisFixture.class"))
                    .isNull();
        }
    }
}
