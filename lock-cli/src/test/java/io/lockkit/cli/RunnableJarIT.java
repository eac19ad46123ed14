package io.lockkit.cli;

import static io.lockkit.cli.CliSupport.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.jdbc.PostgresFixture;
import io.lockkit.testkit.jdbc.PostgresServer;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
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
    @DisplayName(
            "the jar picks the jdbc provider for a jdbc:postgresql: URL: lists and force-releases a lock held by this JVM")
    void jarRunsOnPostgres() throws Exception {
        List<LockLostException> lost = new CopyOnWriteArrayList<>();
        String prefix = CliSupport.uniquePrefix();
        try (PostgresServer pg = PostgresFixture.builder().build().start()) {
            JdbcLockProvider.builder()
                    .jdbcUrl(pg.jdbcUrl())
                    .createSchema(true)
                    .build()
                    .close();
            try (DistributedLockFactory holders = DistributedLockFactory.builder(JdbcLockProvider.create(pg.jdbcUrl()))
                    .defaultOptions(LockOptions.builder()
                            .watchdogLease(Duration.ofSeconds(1))
                            .build())
                    .onLockLost(lost::add)
                    .build()) {
                holders.acquire(prefix + "job", LockOptions.noWait());
                Run list = java("--uri", pg.jdbcUrl(), "--json", "list", prefix);
                assertThat(list.code()).as("%s", list).isZero();
                assertThat(json(list.out()).getAsJsonObject().get("count").getAsLong())
                        .isEqualTo(1);
                assertThat(list.err()).as("no logging noise on stderr").isEmpty();
                Run released = java("--uri", pg.jdbcUrl(), "release", prefix + "job", "--force", "--yes");
                assertThat(released.code()).as("%s", released).isZero();
                await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
            }
        }
    }

    @Test
    @DisplayName("--json list against an unreachable Redis prints one JSON error document and exits 3")
    void jsonOnFailureIsOneDocument() throws Exception {
        String nowhere = "redis://127.0.0.1:" + io.lockkit.testkit.redis.RedisFixture.freePort();
        Run r = java("--json", "--uri", nowhere, "--timeout", "1", "list");
        assertThat(r.code()).as("%s", r).isEqualTo(LockkitCli.EXIT_BACKEND);
        var doc = json(r.out()).getAsJsonObject();
        assertThat(doc.get("exitCode").getAsInt()).isEqualTo(LockkitCli.EXIT_BACKEND);
        assertThat(doc.get("error").getAsString()).isEqualTo("backend");
        assertThat(doc.get("message").getAsString()).contains(nowhere);
        assertThat(r.err()).contains(nowhere);
    }

    @Test
    @DisplayName("the jar holds the CLI and its run-time dependencies, and no test classes")
    void jarContents() throws IOException {
        try (JarFile jar = new JarFile(jar().toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo(LockkitCli.class.getName());
            assertThat(jar.getEntry("io/lockkit/cli/LockkitCli.class")).isNotNull();
            assertThat(jar.getEntry("io/lockkit/jedis/JedisLockProvider.class")).isNotNull();
            assertThat(jar.getEntry("io/lockkit/jdbc/JdbcLockProvider.class")).isNotNull();
            assertThat(jar.getEntry("org/postgresql/Driver.class")).isNotNull();
            assertThat(text(jar, "META-INF/services/io.lockkit.spi.LockProviderFactory"))
                    .as("both providers' factories, merged")
                    .contains("io.lockkit.jedis.JedisLockProviderFactory", "io.lockkit.jdbc.JdbcLockProviderFactory");
            assertThat(jar.getEntry("picocli/CommandLine.class")).isNotNull();
            assertThat(jar.getEntry("io/lockkit/cli/HolderMain.class")).isNull();
            assertThat(jar.getEntry("io/lockkit/testkit/redis/RedisFixture.class"))
                    .isNull();
        }
    }

    /** A line of META-INF/licenses/THIRD-PARTY.txt: {@code group:artifact:version | licence | file | packages}. */
    private record Bundled(String coordinates, String licence, String file, List<String> packages) {
        static Bundled parse(String line) {
            String[] f = line.split("\\|", -1);
            assertThat(f).as("fields of '%s'", line).hasSize(4);
            return new Bundled(
                    f[0].trim(),
                    f[1].trim(),
                    f[2].trim(),
                    Arrays.stream(f[3].split(",")).map(String::trim).toList());
        }

        String groupAndArtifact() {
            return coordinates.substring(0, coordinates.lastIndexOf(':'));
        }
    }

    @Test
    @DisplayName(
            "the jar carries lockkit's LICENSE and NOTICE and, for every component it bundles, its version and licence text")
    void jarCarriesTheLicencesOfWhatItBundles() throws IOException {
        try (JarFile jar = new JarFile(jar().toFile())) {
            String license = text(jar, "META-INF/LICENSE");
            assertThat(license).contains("Apache License", "Version 2.0, January 2004");
            assertThat(text(jar, "META-INF/NOTICE"))
                    .contains("lockkit", "THIRD-PARTY.txt", "Apache Commons Pool", "The Apache Software Foundation");
            assertThat(jar.getEntry("META-INF/LICENSE.txt"))
                    .as("a dependency's own copy would stand for the whole jar")
                    .isNull();
            assertThat(jar.getEntry("META-INF/NOTICE.txt")).isNull();

            List<Bundled> bundled = text(jar, "META-INF/licenses/THIRD-PARTY.txt")
                    .lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .map(Bundled::parse)
                    .toList();
            Map<String, Bundled> byArtifact = new TreeMap<>();
            for (Bundled b : bundled) {
                byArtifact.put(b.groupAndArtifact(), b);
            }
            System.out.println("lockkit-cli.jar bundles (META-INF/licenses/THIRD-PARTY.txt):");
            for (Bundled b : bundled) {
                String text = text(jar, b.file()).replaceAll("\\s+", " "); // SLF4J's has double spaces
                assertThat(text)
                        .as("licence text %s of %s", b.file(), b.coordinates())
                        .isNotBlank();
                switch (b.licence()) {
                    case "Apache-2.0" -> assertThat(text).contains("Apache License", "Version 2.0");
                    case "MIT" -> assertThat(text).contains("Permission is hereby granted, free of charge");
                    case "Public Domain" -> assertThat(text).containsIgnoringCase("public domain");
                    case "BSD-2-Clause" ->
                        assertThat(text).contains("Redistribution and use in source and binary forms");
                    default -> throw new AssertionError("unexpected licence " + b.licence() + " of " + b.coordinates());
                }
                System.out.println("  " + b.coordinates() + "  " + b.licence() + "  " + b.file());
            }

            // Every Maven artifact shaded in (its pom.properties) is listed, at the version bundled.
            List<String> shaded = jar.stream()
                    .map(JarEntry::getName)
                    .filter(n -> n.startsWith("META-INF/maven/") && n.endsWith("/pom.properties"))
                    .filter(n -> !n.startsWith("META-INF/maven/io.lockkit/"))
                    .toList();
            assertThat(shaded).isNotEmpty();
            for (String entry : shaded) {
                Properties pom = new Properties();
                try (InputStream in = jar.getInputStream(jar.getEntry(entry))) {
                    pom.load(in);
                }
                String coordinates = pom.getProperty("groupId") + ":" + pom.getProperty("artifactId") + ":"
                        + pom.getProperty("version");
                assertThat(bundled)
                        .as("THIRD-PARTY.txt lists %s", coordinates)
                        .extracting(Bundled::coordinates)
                        .contains(coordinates);
            }
            // picocli's jar has no pom.properties: its version is the one on this test's class path.
            assertThat(byArtifact.get("info.picocli:picocli"))
                    .isNotNull()
                    .extracting(Bundled::coordinates)
                    .isEqualTo("info.picocli:picocli:" + picocli.CommandLine.VERSION);

            // Every class is lockkit's or in a package a listed component brings.
            List<String> packages = bundled.stream()
                    .flatMap(b -> b.packages().stream())
                    .map(p -> p.replace('.', '/') + "/")
                    .toList();
            List<String> unaccounted = jar.stream()
                    .map(JarEntry::getName)
                    .filter(n -> n.endsWith(".class") && !n.startsWith("META-INF/"))
                    .filter(n -> !n.startsWith("io/lockkit/"))
                    .filter(n -> packages.stream().noneMatch(n::startsWith))
                    .toList();
            assertThat(unaccounted)
                    .as("classes of no component in THIRD-PARTY.txt")
                    .isEmpty();
        }
    }

    private static String text(JarFile jar, String name) throws IOException {
        JarEntry entry = jar.getJarEntry(name);
        assertThat(entry).as("%s in the jar", name).isNotNull();
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
