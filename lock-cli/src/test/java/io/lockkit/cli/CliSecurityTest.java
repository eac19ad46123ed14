package io.lockkit.cli;

import static io.lockkit.cli.CliSupport.json;
import static io.lockkit.cli.CliSupport.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockInfo;
import io.lockkit.LockOptions;
import io.lockkit.cli.CliSupport.Result;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CLI under Redis security: a read-only ACL user (the one the README documents) can list,
 * show and watch but not release; a wrong password is an authentication failure; rediss:// with
 * a CA file given by {@code --cacert}.
 */
@DisplayName("lockkit CLI: ACL, AUTH and TLS")
class CliSecurityTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    /**
     * What list, show and watch need, and nothing that writes: found by running them under an ACL
     * and reading {@code ACL LOG}. The README's "Operator CLI" section documents this list.
     * ({@code client|setname}: Jedis names the connection {@code lockkit-cli}; a refusal would only
     * be logged.)
     */
    static final List<String> READ_ONLY_COMMANDS =
            List.of("scan", "evalsha", "eval", "hmget", "hget", "pttl", "time", "zrange", "client|setname");

    /**
     * What {@code release --force} needs on top of {@link #READ_ONLY_COMMANDS} (with the channel
     * pattern {@code &lockkit:*} for the hand-over message): the force-release script's writes.
     */
    static final List<String> RELEASE_COMMANDS = List.of("hdel", "hset", "exists", "zrem", "pexpire", "publish");

    private static final String PASSWORD = "r3ad-only-pw";

    private RedisServer redis;
    private DistributedLockFactory holders;
    private String prefix;
    private final ExecutorService waiterThread = Executors.newSingleThreadExecutor();

    @BeforeEach
    void setUp() {
        redis = REDIS.server();
        holders = DistributedLockFactory.builder(JedisLockProvider.create(redis.uri()))
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofSeconds(1))
                        .build())
                .build();
        prefix = CliSupport.uniquePrefix();
    }

    @AfterEach
    void tearDown() {
        waiterThread.shutdownNow();
        holders.close();
    }

    private static boolean atLeast(RedisServer server, int major, int minor) {
        int[] v = Arrays.stream(server.version().split("\\."))
                .limit(2)
                .mapToInt(Integer::parseInt)
                .toArray();
        return v[0] > major || (v[0] == major && v[1] >= minor);
    }

    /**
     * The read-only ACL of the README: key pattern, commands, and client|setinfo where this Redis
     * knows it. (Redis 7's read-only key pattern {@code %R~lockkit:*} refuses the inspection script:
     * EVAL and EVALSHA declare their keys read-write.)
     */
    private List<String> readOnlyRules() {
        List<String> rules = new ArrayList<>(List.of("~lockkit:*"));
        READ_ONLY_COMMANDS.forEach(c -> rules.add("+" + c));
        if (atLeast(redis, 7, 2) || !atLeast(redis, 7, 0)) {
            rules.add("+client|setinfo"); // Jedis sends it and ignores a refusal; 7.0 and 7.1 reject the rule itself
        }
        return rules;
    }

    private void aclUser(String user, List<String> rules) {
        List<String> args =
                new ArrayList<>(List.of("ACL", "SETUSER", user, "reset", "resetchannels", "on", ">" + PASSWORD));
        args.addAll(rules);
        redis.command(args.toArray(String[]::new));
    }

    /** Refusals that {@code ACL LOG} recorded for {@code user}, as "reason:object". */
    private List<String> aclDenials(String user) {
        List<String> denials = new ArrayList<>();
        for (Object entry : (List<?>) redis.command("ACL", "LOG")) {
            List<?> kv = (List<?>) entry;
            Map<String, Object> fields = new LinkedHashMap<>();
            for (int i = 0; i + 1 < kv.size(); i += 2) {
                fields.put(String.valueOf(kv.get(i)), kv.get(i + 1));
            }
            if (user.equals(fields.get("username"))) {
                denials.add(fields.get("reason") + ":" + fields.get("object"));
            }
        }
        return denials;
    }

    private Result asReader(String... args) {
        List<String> all = new ArrayList<>(List.of("--uri", "redis://reader@127.0.0.1:" + redis.port()));
        all.addAll(List.of(args));
        return run(
                LockkitCli.Environment.of(Map.of(LockkitCli.PASSWORD_VARIABLE, PASSWORD), null),
                all.toArray(String[]::new));
    }

    /** Two held locks under the test's prefix, the first with a waiter (so that the queue is read too). */
    private void holdTwoWithAWaiter() throws Exception {
        holders.acquire(prefix + "a", LockOptions.noWait());
        holders.acquire(prefix + "b", LockOptions.noWait());
        waiterThread.submit(() -> holders.tryAcquire(prefix + "a", LockOptions.waitAtMost(Duration.ofSeconds(30))));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> holders.operations()
                                .inspect(prefix + "a")
                                .map(LockInfo::waiters)
                                .orElse(0)
                        == 1);
    }

    @Test
    @DisplayName(
            "a read-only ACL user lists, shows and watches with nothing refused, and release --force fails with exit 3 naming the ACL")
    void readOnlyAclUser() throws Exception {
        aclUser("reader", readOnlyRules());
        try {
            holdTwoWithAWaiter();
            redis.command("ACL", "LOG", "RESET");

            Result list = asReader("--json", "list", prefix);
            assertThat(list.code()).as("%s", list).isZero();
            assertThat(json(list.out()).getAsJsonObject().get("count").getAsLong())
                    .isEqualTo(2);
            Result show = asReader("--json", "show", prefix + "a");
            assertThat(show.code()).as("%s", show).isZero();
            assertThat(json(show.out()).getAsJsonObject().get("waiters").getAsInt())
                    .isEqualTo(1);
            assertThat(asReader("show", prefix + "free").code()).isEqualTo(LockkitCli.EXIT_NOT_HELD);
            assertThat(asReader("watch", prefix, "-n", "1").code()).isZero();
            assertThat(aclDenials("reader"))
                    .as("ACL LOG after list, show and watch")
                    .isEmpty();

            Result release = asReader("release", prefix + "a", "--force", "--yes");
            assertThat(release.code()).as("%s", release).isEqualTo(LockkitCli.EXIT_BACKEND);
            assertThat(release.err()).contains("refused a command to this user (ACL)");
            assertThat(aclDenials("reader")).as("ACL LOG after release --force").isNotEmpty();
            assertThat(run("--uri", redis.uri(), "show", prefix + "a").code())
                    .as("still held")
                    .isZero();
        } finally {
            redis.command("ACL", "DELUSER", "reader");
        }
    }

    @Test
    @DisplayName(
            "the operator ACL (read-only plus the release commands) force-releases a lock with a waiter and one without, with nothing refused")
    void operatorAclReleases() throws Exception {
        List<String> rules = new ArrayList<>(readOnlyRules());
        rules.add("&lockkit:*");
        RELEASE_COMMANDS.forEach(c -> rules.add("+" + c));
        aclUser("reader", rules);
        try {
            holdTwoWithAWaiter();
            redis.command("ACL", "LOG", "RESET");
            Result withWaiter = asReader("release", prefix + "a", "--force", "--yes");
            assertThat(withWaiter.code()).as("%s", withWaiter).isZero();
            Result without = asReader("release", prefix + "b", "--force", "--yes");
            assertThat(without.code()).as("%s", without).isZero();
            assertThat(aclDenials("reader")).as("ACL LOG after both releases").isEmpty();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> holders.operations().inspect(prefix + "a").isPresent());
            assertThat(holders.operations().inspect(prefix + "b")).isEmpty();
        } finally {
            redis.command("ACL", "DELUSER", "reader");
        }
    }

    static List<String> neededCommands() {
        return READ_ONLY_COMMANDS.stream().filter(c -> !c.startsWith("client|")).toList();
    }

    @ParameterizedTest(name = "without {0}")
    @MethodSource("neededCommands")
    @DisplayName(
            "every command of the read-only ACL is needed: without it list or show fails with exit 3 and Redis logs the refusal")
    void everyReadOnlyCommandIsNeeded(String command) throws Exception {
        List<String> rules = new ArrayList<>(readOnlyRules());
        rules.remove("+" + command);
        aclUser("reader", rules);
        try {
            holdTwoWithAWaiter();
            redis.command("ACL", "LOG", "RESET");
            int list = asReader("list", prefix).code();
            int show = asReader("show", prefix + "a").code();
            assertThat(List.of(list, show)).as("exit codes of list and show").contains(LockkitCli.EXIT_BACKEND);
            assertThat(aclDenials("reader")).as("ACL LOG").contains("command:" + command);
        } finally {
            redis.command("ACL", "DELUSER", "reader");
        }
    }

    @Test
    @DisplayName("a wrong password exits 3 as an authentication failure, without showing the password")
    void wrongPasswordIsAnAuthenticationFailure() {
        aclUser("reader", readOnlyRules());
        try {
            Result r = run(
                    "--uri",
                    "redis://127.0.0.1:" + redis.port(),
                    "--user",
                    "reader",
                    "--password",
                    "not-the-password",
                    "list");
            assertThat(r.code()).as("%s", r).isEqualTo(LockkitCli.EXIT_BACKEND);
            assertThat(r.err()).contains("authentication").doesNotContain("not-the-password");
        } finally {
            redis.command("ACL", "DELUSER", "reader");
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("TLS (rediss://) with a certificate made by the test")
    class Tls {

        private RedisServer own;
        private Path certificate;
        private int tlsPort;

        @BeforeAll
        void startTlsServer(@TempDir Path dir) throws Exception {
            certificate = dir.resolve("redis.crt");
            Path key = dir.resolve("redis.key");
            assumeTrue(openssl(dir, certificate, key), "no working openssl on the PATH to make a test certificate");
            tlsPort = RedisFixture.freePort();
            List<String> args = List.of(
                    "--tls-port",
                    Integer.toString(tlsPort),
                    "--tls-cert-file",
                    certificate.toString(),
                    "--tls-key-file",
                    key.toString(),
                    "--tls-ca-cert-file",
                    certificate.toString(),
                    "--tls-auth-clients",
                    "no");
            try {
                own = RedisFixture.builder().build().startLocal(RedisFixture.freePort(), args);
            } catch (IllegalStateException e) {
                assumeTrue(false, "this redis-server does not run TLS: " + e.getMessage());
            }
        }

        @AfterAll
        void stopTlsServer() {
            if (own != null) {
                own.close();
            }
        }

        @Test
        @DisplayName(
                "rediss:// with --cacert lists the locks; without it the certificate is not trusted (exit 3); --cacert on redis:// is a usage error")
        void rediss() throws Exception {
            try (DistributedLockFactory plain = DistributedLockFactory.create(JedisLockProvider.create(own.uri()))) {
                plain.acquire(prefix + "tls", LockOptions.noWait());
                String tls = "rediss://127.0.0.1:" + tlsPort;
                Result ok = run("--uri", tls, "--cacert", certificate.toString(), "list", "--json", prefix);
                assertThat(ok.code()).as("%s", ok).isZero();
                assertThat(json(ok.out()).getAsJsonObject().get("count").getAsLong())
                        .isEqualTo(1);
                String clients = (String) own.command("CLIENT", "LIST");
                assertThat(clients.lines().filter(l -> l.contains(" name=" + Target.CLIENT_NAME + " ")))
                        .as("the CLI's connections are gone when it returns")
                        .isEmpty();

                Result untrusted = run("--uri", tls, "--timeout", "1s", "show", prefix + "tls");
                assertThat(untrusted.code()).as("%s", untrusted).isEqualTo(LockkitCli.EXIT_BACKEND);
                Result plainWithCa = run("--uri", own.uri(), "--cacert", certificate.toString(), "list");
                assertThat(plainWithCa.code()).as("%s", plainWithCa).isEqualTo(LockkitCli.EXIT_USAGE);
                assertThat(plainWithCa.err()).contains("rediss://");
            }
        }

        private boolean openssl(Path dir, Path cert, Path key) throws IOException, InterruptedException {
            Path log = dir.resolve("openssl.log");
            Process p;
            try {
                p = new ProcessBuilder(List.of(
                                "openssl",
                                "req",
                                "-x509",
                                "-newkey",
                                "ec",
                                "-pkeyopt",
                                "ec_paramgen_curve:prime256v1",
                                "-nodes",
                                "-days",
                                "2",
                                "-subj",
                                "/CN=lockkit-cli-test",
                                "-addext",
                                "subjectAltName=IP:127.0.0.1",
                                "-keyout",
                                key.toString(),
                                "-out",
                                cert.toString()))
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
            } catch (IOException e) {
                return false;
            }
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            if (p.exitValue() != 0) {
                System.err.println("openssl: " + Files.readString(log, StandardCharsets.UTF_8));
            }
            return p.exitValue() == 0 && Files.exists(cert);
        }
    }
}
