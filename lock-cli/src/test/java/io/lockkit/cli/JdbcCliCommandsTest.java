package io.lockkit.cli;

import static io.lockkit.cli.CliSupport.json;
import static io.lockkit.cli.CliSupport.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.cli.CliSupport.RemoteHolder;
import io.lockkit.cli.CliSupport.Result;
import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.testkit.jdbc.PostgresExtension;
import io.lockkit.testkit.jdbc.PostgresServer;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The commands on PostgreSQL, chosen by a {@code jdbc:postgresql:} URI, with holders in this JVM
 * (a factory of its own) and in another JVM ({@link HolderMain}): list, show, watch and release
 * --force, as tables and as JSON read back with a strict parser, and the exit codes.
 */
@DisplayName("lockkit CLI commands against a real PostgreSQL")
class JdbcCliCommandsTest {

    /** Renewals are statements on a loaded machine: a lease of a few seconds, not Redis's 1 s, keeps holds alive. */
    private static final Duration LEASE = Duration.ofSeconds(5);

    @RegisterExtension
    static final PostgresExtension PG = new PostgresExtension();

    private final List<LockLostException> lost = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private PostgresServer pg;
    private DistributedLockFactory holders;
    private String prefix;

    @BeforeEach
    void setUp() {
        pg = PG.server();
        JdbcLockProvider.builder()
                .jdbcUrl(pg.jdbcUrl())
                .createSchema(true)
                .build()
                .close();
        holders = DistributedLockFactory.builder(JdbcLockProvider.create(pg.jdbcUrl()))
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
        List<String> all = new ArrayList<>(List.of("--uri", pg.jdbcUrl()));
        all.addAll(List.of(args));
        return run(all.toArray(String[]::new));
    }

    private LockHandle hold(String name) throws InterruptedException {
        return holders.acquire(
                name, LockOptions.builder().watchdogLease(LEASE).noWait().build());
    }

    @Test
    @DisplayName("list shows the holds of another JVM and of another factory, as a table and as JSON")
    void listShowsHoldersOfOtherJvmsAndFactories() throws Exception {
        RemoteHolder other =
                new RemoteHolder(pg.jdbcUrl(), List.of(prefix + "remote:1", prefix + "remote:2"), LEASE.toSeconds());
        closeables.add(other);
        other.awaitReady();
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
        assertThat(doc.get("count").getAsLong()).isEqualTo(3);
        Map<String, JsonObject> byName = new HashMap<>();
        for (JsonElement e : doc.getAsJsonArray("locks")) {
            byName.put(e.getAsJsonObject().get("name").getAsString(), e.getAsJsonObject());
        }
        assertThat(byName).containsOnlyKeys(prefix + "remote:1", prefix + "remote:2", prefix + "local");
        JsonObject mine = byName.get(prefix + "local");
        assertThat(mine.get("holdCount").getAsInt()).isEqualTo(2);
        assertThat(mine.get("fencingToken").getAsLong()).isEqualTo(local.fencingToken());
        assertThat(mine.get("clientId").getAsString()).isEqualTo(holders.clientId());
        assertThat(byName.get(prefix + "remote:1").get("clientId").getAsString())
                .isNotEqualTo(holders.clientId())
                .contains("/" + other.pid() + "/");

        Result none = cli("list", "--json", prefix + "nothing:");
        assertThat(none.code()).isZero();
        assertThat(json(none.out()).getAsJsonObject().getAsJsonArray("locks")).isEmpty();
    }

    @Test
    @DisplayName(
            "show describes a held lock with its waiter (exit 0) and reports a free one (exit 1), in words and JSON")
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
                        prefix + "order:42",
                        "hold count:     1",
                        "fencing token:  " + h.fencingToken(),
                        "waiters:        1");
        JsonObject js = json(cli("show", prefix + "order:42", "--json").out()).getAsJsonObject();
        assertThat(js.get("held").getAsBoolean()).isTrue();
        assertThat(js.get("fencingToken").getAsLong()).isEqualTo(h.fencingToken());

        Result free = cli("show", prefix + "free");
        assertThat(free.code()).isEqualTo(LockkitCli.EXIT_NOT_HELD);
        assertThat(free.err()).contains("lock '" + prefix + "free' is not held");
        assertThat(json(cli("--json", "show", prefix + "free").out())
                        .getAsJsonObject()
                        .get("held")
                        .getAsBoolean())
                .isFalse();
    }

    @Test
    @DisplayName(
            "release --force --yes frees a lock held in another JVM, which hears of the loss; without --yes it refuses")
    void releaseTellsARemoteHolder() throws Exception {
        RemoteHolder other = new RemoteHolder(pg.jdbcUrl(), List.of(prefix + "remote"), LEASE.toSeconds());
        closeables.add(other);
        other.awaitReady();
        Result refused = cli("release", prefix + "remote", "--force");
        assertThat(refused.code()).as("%s", refused).isEqualTo(LockkitCli.EXIT_REFUSED);

        Result r = cli("--json", "release", "--force", "-y", prefix + "remote");
        assertThat(r.code()).as("%s", r).isZero();
        JsonObject js = json(r.out()).getAsJsonObject();
        assertThat(js.get("released").getAsBoolean()).isTrue();
        assertThat(js.getAsJsonObject("holder").get("name").getAsString()).isEqualTo(prefix + "remote");
        await().atMost(Duration.ofSeconds(10)).until(() -> other.contains("LOST " + prefix + "remote"));
        assertThat(cli("show", prefix + "remote").code()).isEqualTo(LockkitCli.EXIT_NOT_HELD);
    }

    @Test
    @DisplayName("release --force --yes frees a lock of another factory, whose next renewal reports the loss")
    void releaseTellsTheLocalHolder() throws Exception {
        LockHandle h = hold(prefix + "job");
        Result r = cli("release", prefix + "job", "--force", "--yes");
        assertThat(r.code()).as("%s", r).isZero();
        assertThat(r.out()).contains("released '" + prefix + "job'");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> lost.stream().anyMatch(e -> e.lockName().equals(prefix + "job")));
        assertThat(h.lost().toCompletableFuture()).isCompleted();
    }

    @Test
    @DisplayName("watch redraws the table for --iterations frames; with --json one document per frame")
    void watchRedraws() throws Exception {
        hold(prefix + "w:1");
        hold(prefix + "w:2");
        Result r = cli("watch", prefix, "--interval", "50ms", "--iterations", "3");
        assertThat(r.code()).as("%s", r).isZero();
        assertThat(r.out().split("lockkit watch ", -1)).hasSize(4);
        assertThat(r.out()).contains(prefix + "w:1", prefix + "w:2", "2 locks held", "jdbc:postgresql://");

        Result js = cli("--json", "watch", prefix, "--interval", "50ms", "-n", "2", "--limit", "1");
        List<String> lines = js.out().lines().collect(Collectors.toList());
        assertThat(lines).hasSize(2);
        for (String line : lines) {
            JsonObject frame = json(line).getAsJsonObject();
            assertThat(frame.get("count").getAsLong()).isEqualTo(2);
            assertThat(frame.getAsJsonArray("locks")).hasSize(1);
        }
    }

    @Test
    @DisplayName(
            "--set names another lock table; a missing grant and an absent database exit 3 naming the database; Redis-only options exit 2")
    void settingsGrantsAndFailures() throws Exception {
        JdbcLockProvider other = JdbcLockProvider.builder()
                .jdbcUrl(pg.jdbcUrl())
                .table("cli_other_locks")
                .createSchema(true)
                .build();
        try (DistributedLockFactory otherHolders = DistributedLockFactory.create(other)) {
            otherHolders.acquire(prefix + "elsewhere", LockOptions.noWait());
            hold(prefix + "here");
            Result otherTable = cli("--json", "--set", "lockkit.jdbc.table=cli_other_locks", "list", prefix);
            assertThat(otherTable.code()).as("%s", otherTable).isZero();
            assertThat(json(otherTable.out()).getAsJsonObject().getAsJsonArray("locks"))
                    .singleElement()
                    .extracting(e -> e.getAsJsonObject().get("name").getAsString())
                    .isEqualTo(prefix + "elsewhere");
        }

        pg.query("DO $$ BEGIN CREATE ROLE cli_nobody LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
        String noGrants = pg.jdbcUrl().replace("user=postgres", "user=cli_nobody");
        Result denied = run("--uri", noGrants, "list");
        assertThat(denied.code()).as("%s", denied).isEqualTo(LockkitCli.EXIT_BACKEND);
        assertThat(denied.err()).contains("The database at jdbc:postgresql://", "refused a statement", "(grants)");

        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        String nowhere = "jdbc:postgresql://127.0.0.1:" + closed + "/postgres?user=postgres&password=hush";
        Result absent = run("--json", "--uri", nowhere, "--timeout", "1s", "list");
        assertThat(absent.code()).as("%s", absent).isEqualTo(LockkitCli.EXIT_BACKEND);
        assertThat(json(absent.out()).getAsJsonObject().get("message").getAsString())
                .contains("The database at jdbc:postgresql://127.0.0.1:" + closed)
                .contains("is unreachable")
                .doesNotContain("hush");

        Result prefixed = cli("--key-prefix", "app", "list");
        assertThat(prefixed.code()).isEqualTo(LockkitCli.EXIT_USAGE);
        assertThat(prefixed.err()).contains("--key-prefix does not apply to the jdbc provider");
        Result ca = cli("--cacert", "ca.pem", "list");
        assertThat(ca.code()).isEqualTo(LockkitCli.EXIT_USAGE);
        assertThat(ca.err()).contains("--cacert does not apply to the jdbc provider");
    }
}
