package io.lockkit.cli;

import static io.lockkit.cli.CliSupport.json;
import static io.lockkit.cli.CliSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockInfo;
import io.lockkit.LockOptions;
import io.lockkit.cli.CliSupport.Result;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --json} writes exactly one JSON document on stdout whatever the exit code (watch: one per
 * line), read back with a strict parser: a command's own document for 0, 1 and 4, an error document
 * {@code {"exitCode","error","message"}} for 2, 3 and 5; and durations take the configuration's forms.
 */
@DisplayName("lockkit --json on every exit path")
class JsonOutputTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private RedisServer redis;
    private DistributedLockFactory holders;
    private String prefix;

    @BeforeEach
    void setUp() {
        redis = REDIS.server();
        holders = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
        prefix = CliSupport.uniquePrefix();
    }

    @AfterEach
    void tearDown() {
        holders.close();
    }

    private Result cli(String... args) {
        List<String> all = new ArrayList<>(List.of("--uri", redis.uri(), "--json"));
        all.addAll(List.of(args));
        return run(all.toArray(String[]::new));
    }

    /** The error document of a failed run: exit code, kind and a message, nothing else on stdout. */
    private static JsonObject error(Result r, int code, String kind) {
        assertThat(r.code()).as("%s", r).isEqualTo(code);
        JsonObject doc = json(r.out()).getAsJsonObject();
        assertThat(doc.keySet()).as("%s", r).containsExactly("exitCode", "error", "message");
        assertThat(doc.get("exitCode").getAsInt()).isEqualTo(code);
        assertThat(doc.get("error").getAsString()).isEqualTo(kind);
        assertThat(doc.get("message").getAsString()).isNotBlank();
        assertThat(r.err()).as("the message on stderr too").isNotBlank();
        return doc;
    }

    @Test
    @DisplayName("exit 0 and 1: list, show and release write their documents")
    void doneAndNotHeld() throws Exception {
        holders.acquire(prefix + "held", LockOptions.noWait());
        Result list = cli("list", prefix);
        assertThat(list.code()).isZero();
        assertThat(json(list.out()).getAsJsonObject().get("count").getAsLong()).isEqualTo(1);
        Result show = cli("show", prefix + "held");
        assertThat(show.code()).isZero();
        assertThat(json(show.out()).getAsJsonObject().get("held").getAsBoolean())
                .isTrue();

        Result free = cli("show", prefix + "free");
        assertThat(free.code()).isEqualTo(LockkitCli.EXIT_NOT_HELD);
        assertThat(json(free.out()).getAsJsonObject().get("held").getAsBoolean())
                .isFalse();
        Result nothing = cli("release", prefix + "free", "--force", "--yes");
        assertThat(nothing.code()).isEqualTo(LockkitCli.EXIT_NOT_HELD);
        assertThat(json(nothing.out()).getAsJsonObject().get("released").getAsBoolean())
                .isFalse();
    }

    @Test
    @DisplayName("exit 2: every usage error is an error document of kind usage")
    void usageErrors() {
        error(run("--json"), LockkitCli.EXIT_USAGE, "usage"); // no command
        error(run("--json", "list", "--bogus"), LockkitCli.EXIT_USAGE, "usage");
        error(run("list", "--bogus", "--json"), LockkitCli.EXIT_USAGE, "usage");
        error(cli("release", prefix + "x"), LockkitCli.EXIT_USAGE, "usage"); // no --force
        error(run("--json", "--timeout", "soon", "list"), LockkitCli.EXIT_USAGE, "usage");
        error(run("--json", "watch", "--interval", "0s"), LockkitCli.EXIT_USAGE, "usage");
        error(cli("watch", "--limit", "0"), LockkitCli.EXIT_USAGE, "usage");
        JsonObject badUri =
                error(run("--json", "--uri", "http://localhost:6379", "list"), LockkitCli.EXIT_USAGE, "usage");
        assertThat(badUri.get("message").getAsString())
                .contains("no lock provider on the class path takes a URI like 'http://localhost:6379'")
                .contains("redis:", "rediss:", "jdbc:postgresql:");
    }

    @Test
    @DisplayName(
            "exit 3: an unreachable Redis is a message naming it, and with --json an error document of kind backend, for every command")
    void unreachableRedis() {
        String nowhere = "redis://127.0.0.1:" + RedisFixture.freePort();
        for (String[] args : List.of(
                new String[] {"list"},
                new String[] {"show", "x"},
                new String[] {"release", "x", "--force", "--yes"},
                new String[] {"watch", "-n", "1"})) {
            List<String> all = new ArrayList<>(List.of("--uri", nowhere, "--timeout", "300ms"));
            all.addAll(List.of(args));
            Result plain = run(all.toArray(String[]::new));
            assertThat(plain.code()).as("%s: %s", List.of(args), plain).isEqualTo(LockkitCli.EXIT_BACKEND);
            assertThat(plain.err()).contains(nowhere);
            all.add(0, "--json");
            Result r = run(all.toArray(String[]::new));
            if (args[0].equals("watch")) {
                // JSON lines: the frame's error line, with the time and prefix of the frame
                assertThat(r.code()).as("%s", r).isEqualTo(LockkitCli.EXIT_BACKEND);
                JsonObject line = json(r.out()).getAsJsonObject();
                assertThat(line.get("exitCode").getAsInt()).isEqualTo(LockkitCli.EXIT_BACKEND);
                assertThat(line.get("error").getAsString()).isEqualTo("backend");
                assertThat(line.get("message").getAsString()).contains(nowhere);
                assertThat(line.has("time")).isTrue();
            } else {
                JsonObject doc = error(r, LockkitCli.EXIT_BACKEND, "backend");
                assertThat(doc.get("message").getAsString())
                        .as("%s", List.of(args))
                        .contains(nowhere);
            }
        }
    }

    @Test
    @DisplayName("exit 3 after the listing began: the document is closed with the count so far and the error")
    void listingThatFailsMidway() {
        LockInfo a = new LockInfo("a", "c:h1", "c", 1, 7, Duration.ofSeconds(3), 0);
        LockInfo b = new LockInfo("b", "c:h2", "c", 1, 8, Duration.ofSeconds(3), 0);
        Iterator<LockInfo> pages = new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                if (next == 2) {
                    throw new BackendUnavailableException("p", "Redis could not be reached", null);
                }
                return true;
            }

            @Override
            public LockInfo next() {
                if (next >= 2) {
                    throw new NoSuchElementException();
                }
                return next++ == 0 ? a : b;
            }
        };
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = ListCommand.writeJson(
                new PrintWriter(out, true), new PrintWriter(err, true), "p", pages, "redis://127.0.0.1:1");
        assertThat(code).isEqualTo(LockkitCli.EXIT_BACKEND);
        JsonObject doc = json(out.toString()).getAsJsonObject();
        assertThat(doc.getAsJsonArray("locks")).hasSize(2);
        assertThat(doc.get("count").getAsLong()).isEqualTo(2);
        assertThat(doc.get("exitCode").getAsInt()).isEqualTo(LockkitCli.EXIT_BACKEND);
        assertThat(doc.get("error").getAsString()).isEqualTo("backend");
        assertThat(doc.get("message").getAsString()).contains("redis://127.0.0.1:1");
        assertThat(err.toString()).contains("after 2 locks");
    }

    @Test
    @DisplayName("exit 4: a release refused for want of a console writes its document")
    void refused() throws Exception {
        holders.acquire(prefix + "held", LockOptions.noWait());
        Result r = cli("release", prefix + "held", "--force");
        assertThat(r.code()).isEqualTo(LockkitCli.EXIT_REFUSED);
        JsonObject doc = json(r.out()).getAsJsonObject();
        assertThat(doc.get("released").getAsBoolean()).isFalse();
        assertThat(doc.getAsJsonObject("holder").get("clientId").getAsString()).isEqualTo(holders.clientId());
    }

    @Test
    @DisplayName("exit 5: an internal error is an error document of kind internal, its trace on stderr")
    void internalError() throws Exception {
        holders.acquire(prefix + "held", LockOptions.noWait());
        LockkitCli.Environment broken = new LockkitCli.Environment() {
            @Override
            public @Nullable String variable(String name) {
                return null;
            }

            @Override
            public LockkitCli.@Nullable Prompt console() {
                throw new IllegalStateException("a bug in the console");
            }
        };
        Result r = run(broken, "--uri", redis.uri(), "--json", "release", prefix + "held", "--force");
        JsonObject doc = error(r, LockkitCli.EXIT_INTERNAL, "internal");
        assertThat(doc.get("message").getAsString()).contains("a bug in the console");
        assertThat(r.err()).contains("IllegalStateException", "at io.lockkit.cli.");
    }

    @Test
    @DisplayName("--help and --version with --json: the text inside a document")
    void helpAndVersion() {
        Result help = run("--json", "--help");
        assertThat(help.code()).isZero();
        assertThat(json(help.out()).getAsJsonObject().get("usage").getAsString())
                .contains("Exit codes:");
        Result listHelp = run("list", "--help", "--json");
        assertThat(json(listHelp.out()).getAsJsonObject().get("usage").getAsString())
                .contains("PREFIX");
        Result version = run("--version", "--json");
        assertThat(version.code()).isZero();
        assertThat(json(version.out()).getAsJsonObject().get("version").getAsString())
                .startsWith("lockkit ");
    }

    @Test
    @DisplayName("durations take the configuration's forms: a bare number is seconds, ISO-8601 and units too")
    void durationsTakeTheConfigurationsForms() throws Exception {
        holders.acquire(prefix + "held", LockOptions.noWait());
        for (String timeout : new String[] {"2", "PT1.5S", "1500ms", "1m"}) {
            Result r = cli("--timeout", timeout, "list", prefix);
            assertThat(r.code()).as("--timeout %s: %s", timeout, r).isZero();
        }
        Result watch = cli("watch", prefix, "-n", "2", "--interval", "1");
        assertThat(watch.code()).as("%s", watch).isZero();
        List<JsonElement> frames = watch.out().lines().map(CliSupport::json).toList();
        assertThat(frames).hasSize(2);
        assertThat(new DurationConverter().convert("2")).isEqualTo(Duration.ofSeconds(2));
        assertThat(new DurationConverter().convert(" 250 MS ")).isEqualTo(Duration.ofMillis(250));
        assertThat(new DurationConverter().convert("1d")).isEqualTo(Duration.ofDays(1));
        Result zero = run("--json", "--timeout", "0", "list");
        assertThat(error(zero, LockkitCli.EXIT_USAGE, "usage").get("message").getAsString())
                .contains("must be a positive duration");
    }
}
