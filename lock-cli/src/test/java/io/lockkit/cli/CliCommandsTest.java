package io.lockkit.cli;

import static io.lockkit.cli.CliSupport.json;
import static io.lockkit.cli.CliSupport.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.cli.CliSupport.RemoteHolder;
import io.lockkit.cli.CliSupport.Result;
import io.lockkit.cli.CliSupport.ScriptedConsole;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each command against a real Redis, with holders in this JVM (a factory of its own) and in
 * another JVM ({@link HolderMain}): list, show, release --force (with and without confirmation),
 * watch, --json read back with a strict parser, and the exit codes.
 */
@DisplayName("lockkit CLI commands against a real Redis")
class CliCommandsTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final Duration LEASE = Duration.ofSeconds(1);

    private final List<LockLostException> lost = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private RedisServer redis;
    private DistributedLockFactory holders;
    private String prefix;

    @BeforeEach
    void setUp() {
        redis = REDIS.server();
        holders = DistributedLockFactory.builder(JedisLockProvider.create(redis.uri()))
                .defaultOptions(LockOptions.builder().watchdogLease(LEASE).build())
                .onLockLost(lost::add)
                .build();
        closeables.add(holders);
        prefix = CliSupport.uniquePrefix();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private Result cli(String... args) {
        return run(withUri(args));
    }

    private Result cli(LockkitCli.Environment env, String... args) {
        return run(env, withUri(args));
    }

    private String[] withUri(String... args) {
        List<String> all = new ArrayList<>(List.of("--uri", redis.uri()));
        all.addAll(List.of(args));
        return all.toArray(String[]::new);
    }

    private LockHandle hold(String name) throws InterruptedException {
        return holders.acquire(
                name, LockOptions.builder().watchdogLease(LEASE).noWait().build()); // released by closing holders
    }

    private RemoteHolder remote(String... names) throws Exception {
        RemoteHolder r = new RemoteHolder(redis.uri(), List.of(names));
        closeables.add(r);
        return r.awaitReady();
    }

    @Test
    @DisplayName("list shows the holds of another JVM and of another factory, as a table and as JSON")
    void listShowsHoldersOfOtherJvmsAndFactories() throws Exception {
        RemoteHolder other = remote(prefix + "remote:1", prefix + "remote:2");
        LockHandle local = hold(prefix + "local");
        local.acquireAgain(); // hold count 2

        Result table = cli("list", prefix);
        assertThat(table.code()).as("%s", table).isZero();
        assertThat(table.out())
                .contains("NAME", "HOLDER", "CLIENT", "COUNT", "TOKEN", "LEASE LEFT", "WAITERS")
                .contains(prefix + "remote:1", prefix + "remote:2", prefix + "local")
                .contains("3 locks held under prefix '" + prefix + "'");
        assertThat(table.err()).isEmpty();

        Result js = cli("list", prefix, "--json");
        assertThat(js.code()).as("%s", js).isZero();
        JsonObject doc = json(js.out()).getAsJsonObject();
        assertThat(doc.get("prefix").getAsString()).isEqualTo(prefix);
        assertThat(doc.get("count").getAsLong()).isEqualTo(3);
        Map<String, JsonObject> byName = new java.util.HashMap<>();
        for (JsonElement e : doc.getAsJsonArray("locks")) {
            byName.put(e.getAsJsonObject().get("name").getAsString(), e.getAsJsonObject());
        }
        assertThat(byName).containsOnlyKeys(prefix + "remote:1", prefix + "remote:2", prefix + "local");
        JsonObject mine = byName.get(prefix + "local");
        assertThat(mine.get("holdCount").getAsInt()).isEqualTo(2);
        assertThat(mine.get("fencingToken").getAsLong()).isEqualTo(local.fencingToken());
        assertThat(mine.get("leaseLeftMillis").getAsLong()).isBetween(1L, LEASE.toMillis());
        assertThat(mine.get("waiters").getAsInt()).isZero();
        String remoteClient = byName.get(prefix + "remote:1").get("clientId").getAsString();
        assertThat(byName.get(prefix + "remote:2").get("clientId").getAsString())
                .as("one client in the other JVM")
                .isEqualTo(remoteClient);
        assertThat(mine.get("clientId").getAsString())
                .as("another factory, another client")
                .isNotEqualTo(remoteClient)
                .isEqualTo(holders.clientId());
        // Client ids name host and process (<host>/<pid>/<suffix>): the table tells the two JVMs apart.
        String host = holders.clientId().substring(0, holders.clientId().indexOf('/'));
        assertThat(holders.clientId())
                .startsWith(host + "/" + ProcessHandle.current().pid() + "/");
        assertThat(remoteClient).startsWith(host + "/" + other.pid() + "/");
        assertThat(table.out()).contains(remoteClient, holders.clientId());
        assertThat(other.contains("LOST")).isFalse();
    }

    @Test
    @DisplayName("list streams every lock under the prefix, and only those; an empty listing exits 0")
    void listFiltersByPrefix() throws Exception {
        hold(prefix + "a:1");
        hold(prefix + "a:2");
        hold(prefix + "b:1");
        Result a = cli("--json", "list", prefix + "a:");
        Set<String> names = new HashSet<>();
        json(a.out())
                .getAsJsonObject()
                .getAsJsonArray("locks")
                .forEach(e -> names.add(e.getAsJsonObject().get("name").getAsString()));
        assertThat(names).containsExactlyInAnyOrder(prefix + "a:1", prefix + "a:2");

        Result none = cli("list", prefix + "nothing:");
        assertThat(none.code()).isZero();
        assertThat(none.out()).contains("0 locks held");
        Result noneJson = cli("list", "--json", prefix + "nothing:");
        assertThat(json(noneJson.out()).getAsJsonObject().getAsJsonArray("locks"))
                .isEmpty();
    }

    @Test
    @DisplayName("show describes a held lock (exit 0) and reports a free one (exit 1), in words and in JSON")
    void showDescribesOneLock() throws Exception {
        LockHandle h = hold(prefix + "order:42");
        Thread waiter = new Thread(() -> {
            try {
                holders.tryAcquire(prefix + "order:42", LockOptions.waitAtMost(Duration.ofSeconds(30)));
            } catch (InterruptedException | RuntimeException e) {
                // the factory's close ends the wait
            }
        });
        waiter.setDaemon(true);
        waiter.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> holders.operations()
                                .inspect(prefix + "order:42")
                                .map(LockInfo::waiters)
                                .orElse(0)
                        == 1);
        Result shown = cli("show", prefix + "order:42");
        assertThat(shown.code()).as("%s", shown).isZero();
        assertThat(shown.out())
                .contains(
                        "name:",
                        prefix + "order:42",
                        "holder:",
                        "hold count:     1",
                        "fencing token:  " + h.fencingToken(),
                        "lease left:",
                        "waiters:        1");

        JsonObject js = json(cli("show", prefix + "order:42", "--json").out()).getAsJsonObject();
        assertThat(js.get("held").getAsBoolean()).isTrue();
        assertThat(js.get("fencingToken").getAsLong()).isEqualTo(h.fencingToken());
        assertThat(js.get("waiters").getAsInt()).isEqualTo(1);

        Result free = cli("show", prefix + "free");
        assertThat(free.code()).isEqualTo(LockkitCli.EXIT_NOT_HELD);
        assertThat(free.err()).contains("lock '" + prefix + "free' is not held");
        Result freeJson = cli("--json", "show", prefix + "free");
        assertThat(freeJson.code()).isEqualTo(LockkitCli.EXIT_NOT_HELD);
        assertThat(json(freeJson.out()).getAsJsonObject().get("held").getAsBoolean())
                .isFalse();
    }

    @Test
    @DisplayName("release --force --yes frees a lock of another factory, whose next renewal reports the loss")
    void releaseTellsTheLocalHolderAtItsNextRenewal() throws Exception {
        LockHandle h = hold(prefix + "job");
        Result r = cli("release", prefix + "job", "--force", "--yes");
        assertThat(r.code()).as("%s", r).isZero();
        assertThat(r.out()).contains("released '" + prefix + "job'");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> lost.stream().anyMatch(e -> e.lockName().equals(prefix + "job")));
        assertThat(h.lost().toCompletableFuture()).isCompleted();
        assertThat(cli("show", prefix + "job").code()).isEqualTo(LockkitCli.EXIT_NOT_HELD);
    }

    @Test
    @DisplayName(
            "release --force --yes frees a lock held in another JVM, which hears of the loss; JSON says what was released")
    void releaseTellsARemoteHolder() throws Exception {
        RemoteHolder other = remote(prefix + "remote");
        Result r = cli("--json", "release", "--force", "-y", prefix + "remote");
        assertThat(r.code()).as("%s", r).isZero();
        JsonObject js = json(r.out()).getAsJsonObject();
        assertThat(js.get("released").getAsBoolean()).isTrue();
        assertThat(js.getAsJsonObject("holder").get("name").getAsString()).isEqualTo(prefix + "remote");
        await().atMost(Duration.ofSeconds(10)).until(() -> other.contains("LOST " + prefix + "remote"));
    }

    @Test
    @DisplayName(
            "release asks on the console: y releases, anything else refuses with exit 4; no console and no --yes refuses")
    void releaseAsksForConfirmation() throws Exception {
        hold(prefix + "asked");
        Result noConsole = cli("release", prefix + "asked", "--force");
        assertThat(noConsole.code()).as("%s", noConsole).isEqualTo(LockkitCli.EXIT_REFUSED);
        assertThat(noConsole.err()).contains("no console to confirm on", "--yes");

        ScriptedConsole no = new ScriptedConsole("n");
        Result declined = cli(LockkitCli.Environment.of(Map.of(), no), "release", prefix + "asked", "--force");
        assertThat(declined.code()).isEqualTo(LockkitCli.EXIT_REFUSED);
        assertThat(no.question)
                .startsWith("Release " + prefix + "asked held by ")
                .endsWith("? [y/N] ");
        ScriptedConsole eof = new ScriptedConsole(null);
        assertThat(cli(LockkitCli.Environment.of(Map.of(), eof), "release", prefix + "asked", "--force")
                        .code())
                .isEqualTo(LockkitCli.EXIT_REFUSED);
        assertThat(cli("show", prefix + "asked").code())
                .as("still held after the refusals")
                .isZero();
        assertThat(lost).isEmpty();

        Result yes = cli(
                LockkitCli.Environment.of(Map.of(), new ScriptedConsole("y")), "release", prefix + "asked", "--force");
        assertThat(yes.code()).as("%s", yes).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
    }

    @Test
    @DisplayName("release without --force is a usage error; of a free lock it exits 1")
    void releaseNeedsForceAndAHeldLock() {
        Result noForce = cli("release", prefix + "x", "--yes");
        assertThat(noForce.code()).isEqualTo(LockkitCli.EXIT_USAGE);
        assertThat(noForce.err()).contains("--force");
        Result free = cli("release", prefix + "x", "--force", "--yes");
        assertThat(free.code()).isEqualTo(LockkitCli.EXIT_NOT_HELD);
        assertThat(free.err()).contains("is not held; nothing released");
    }

    @Test
    @DisplayName("watch redraws the table every interval for --iterations frames; with --json one document per frame")
    void watchRedraws() throws Exception {
        hold(prefix + "w:1");
        hold(prefix + "w:2");
        Result r = cli("watch", prefix, "--interval", "50ms", "--iterations", "3");
        assertThat(r.code()).as("%s", r).isZero();
        assertThat(r.out().split("lockkit watch ", -1)).hasSize(4);
        assertThat(r.out()).contains(prefix + "w:1", prefix + "w:2", "2 locks held");

        Result limited = cli("--json", "watch", prefix, "--interval", "50ms", "-n", "2", "--limit", "1");
        List<String> lines = limited.out().lines().collect(Collectors.toList());
        assertThat(lines).hasSize(2);
        for (String line : lines) {
            JsonObject frame = json(line).getAsJsonObject();
            assertThat(frame.get("count").getAsLong()).isEqualTo(2);
            JsonArray shown = frame.getAsJsonArray("locks");
            assertThat(shown).hasSize(1);
            assertThat(shown.get(0).getAsJsonObject().get("name").getAsString())
                    .as("the first by name")
                    .isEqualTo(prefix + "w:1");
        }
    }

    @Test
    @DisplayName(
            "the URI may come from LOCKKIT_REDIS_URI; usage errors (no command, unknown option, bad URI, bad duration) exit 2")
    void environmentAndUsageErrors() throws Exception {
        hold(prefix + "env");
        Result fromEnv = run(
                LockkitCli.Environment.of(Map.of(LockkitCli.URI_VARIABLE, redis.uri()), null), "show", prefix + "env");
        assertThat(fromEnv.code()).as("%s", fromEnv).isZero();

        assertThat(run().code()).isEqualTo(LockkitCli.EXIT_USAGE);
        assertThat(run("list", "--bogus").code()).isEqualTo(LockkitCli.EXIT_USAGE);
        Result badUri = run("--uri", "http://localhost:6379", "list");
        assertThat(badUri.code()).isEqualTo(LockkitCli.EXIT_USAGE);
        assertThat(badUri.err()).contains("the present ones take", "redis:", "rediss:", "jdbc:postgresql:");
        assertThat(run("--uri", "redis://localhost:6379/x", "list").code()).isEqualTo(LockkitCli.EXIT_USAGE);
        assertThat(run("--timeout", "soon", "list").code()).isEqualTo(LockkitCli.EXIT_USAGE);
        assertThat(run("watch", "--interval", "0s").code()).isEqualTo(LockkitCli.EXIT_USAGE);
    }

    @Test
    @DisplayName("--help lists the commands and the exit codes")
    void helpListsExitCodes() {
        Result help = run("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out())
                .contains("list", "show", "release", "watch", "Exit codes:", "LOCKKIT_REDIS_PASSWORD")
                .contains("4   release refused");
    }
}
