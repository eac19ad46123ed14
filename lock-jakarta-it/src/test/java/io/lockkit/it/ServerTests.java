package io.lockkit.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The server tests, run once per server kind against one pair of instances (a and b) that share a
 * Redis server and a directory: the subclasses only name the kind. Instances start once per class
 * (both at the same time) and every test drives them over HTTP; the tests that remove the
 * application run last. What each server answered is printed, so the build log holds the figures.
 */
// Design notes.
// - One pair of processes per server kind, started together and shared by every test of the class:
//   starting servers is most of the cost (about 20 s a pair on two cores), so tests that change the
//   deployment (misconfigured copy, undeploy, redeploy) are ordered last and leave the pair usable.
// - Overlaps are seen from outside the lock: the application marks "inside" with a file created with
//   CREATE_NEW in a directory both instances share (SharedState), so the check does not trust the
//   lock it checks. Counters are files read, paused over and written: without the lock they lose
//   updates, which the negative control proves every run.
// - Duplicates come from count-then-insert with a commit that takes 30 ms (a beforeCompletion
//   synchronization): a lock released before the commit lets the next booker count too early.
// - Class loaders are counted by the classes a JVM still has loaded under the application's class
//   name after two full GCs (jcmd VM.class_hierarchy): a class is unloaded only with its loader.
// - Failures show here as failures, never as skips: the distributions are dependencies of this
//   module (a missing one fails the build), and the only skip is a server deselected with
//   -Dlockkit.it.servers, which the build log says in a warning.
// - Whatever lockkit logs at undeploy is read from the server's own log (ServerInstance.log()):
//   the drain's line, and a leak check's complaints about ThreadLocals (Payara, GlassFish).
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class ServerTests {

    private static final String APP_CLASS = "io.lockkit.it.app.SharedState";
    /** The lease of the application's {@code cleanup} leadership. */
    static final Duration LEADER_LEASE = Duration.ofSeconds(3);
    /** lockkit's default {@code lockkit.drain-timeout}, which the application keeps. */
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);
    /** The period of the application's timers ({@code @Schedule(second = "*}{@code /2")}). */
    static final long TIMER_PERIOD_MILLIS = 2000;

    private final ServerKind kind;
    /** The Redis both instances share (inspected through its plain port). */
    RedisServer redis;
    /** Where lockkit connects over TLS ({@code rediss://}), or 0 when it uses redis's plain port. */
    int tlsPort;

    private io.lockkit.jedis.support.TestCertificates certificates;
    /** PostgreSQL for the WildFly run's DataSource (lockkit.provider=jdbc); null for the others. */
    io.lockkit.testkit.jdbc.PostgresServer postgres;

    Path shared;
    ServerInstance a;
    ServerInstance b;
    private long classStarted;
    private List<String> baselineThreads = List.of();
    private List<String> baselineClients = List.of();
    private boolean undeployed;
    /** When a's undeploy began (wall clock, as the shared logs record times), 0 before. */
    private long undeployBegan;
    /** The size of a's log when its undeploy began. */
    private long undeployLogOffset;
    /** a's term of {@code cleanup} before its undeploy, 0 before {@link #exactlyOneInstanceLeadsAndAStepDownHandsTheLeadOver}. */
    private long leaderTokenBeforeUndeploy;

    ServerTests(ServerKind kind) {
        this.kind = kind;
    }

    @BeforeAll
    void startServers() throws Exception {
        Assumptions.assumeTrue(
                kind.selected(),
                () -> loud(kind.id + " server tests DESELECTED: -Dlockkit.it.servers="
                        + System.getProperty("lockkit.it.servers") + " does not select " + kind.id));
        kind.distribution(); // fails, naming the artifact, when the build did not resolve it
        classStarted = System.nanoTime();
        shared = Settings.work().resolve(kind.id + "-shared");
        Processes.deleteTree(shared);
        Files.createDirectories(shared);
        redis = kind == ServerKind.OPEN_LIBERTY || kind == ServerKind.PAYARA_SERVER
                ? tlsRedis()
                : RedisFixture.builder().build().start();
        if (kind == ServerKind.WILDFLY) {
            postgres = io.lockkit.testkit.jdbc.PostgresFixture.builder().build().start();
        }
        a = ServerInstance.of(kind, "a");
        b = ServerInstance.of(kind, "b");
        if (tlsPort != 0 && passwordFromCredentialStore()) {
            String password = new String(certificates.trustStorePassword());
            a.passwordAlias(TRUST_STORE_PASSWORD, password);
            b.passwordAlias(TRUST_STORE_PASSWORD, password);
        }
        a.launch(properties("a"));
        b.launch(properties("b"));
        a.awaitApplication();
        b.awaitApplication();
        report("started a and b (" + kind.coordinates() + ", " + kind.platform + ") in "
                + Processes.elapsedSince(classStarted).toSeconds() + " s; logs: " + a.log() + ", " + b.log());
    }

    /**
     * A Redis that also listens for TLS with a certificate made for the test (Open Liberty's run is
     * over {@code rediss://}); the plain Redis of the other runs, with a warning, where openssl or a
     * redis-server with TLS is missing (the embedded Redis 6.2 has no TLS).
     */
    private RedisServer tlsRedis() throws Exception {
        Path dir = Files.createDirectories(shared.resolve("tls"));
        java.util.Optional<io.lockkit.jedis.support.TestCertificates> made =
                io.lockkit.jedis.support.TestCertificates.create(dir);
        if (made.isPresent()) {
            int port = RedisFixture.freePort();
            try {
                RedisServer server = RedisFixture.builder()
                        .build()
                        .startLocal(
                                RedisFixture.freePort(),
                                List.of(
                                        "--tls-port", Integer.toString(port),
                                        "--tls-cert-file",
                                                made.get().certificate().toString(),
                                        "--tls-key-file", made.get().key().toString(),
                                        "--tls-ca-cert-file",
                                                made.get().certificate().toString(),
                                        "--tls-auth-clients", "no"));
                certificates = made.get();
                tlsPort = port;
                return server;
            } catch (IllegalStateException e) {
                loud(kind.id + ": this redis-server runs no TLS (" + e.getMessage() + "); plain redis:// instead");
            }
        } else {
            loud(kind.id + ": no openssl to make a certificate; plain redis:// instead of rediss://");
        }
        return RedisFixture.builder().build().start();
    }

    private Map<String, String> properties(String instance) {
        Map<String, String> properties = new LinkedHashMap<>();
        if (tlsPort != 0) {
            properties.put("lockkit.redis.uri", "rediss://127.0.0.1:" + tlsPort);
            properties.put(
                    "lockkit.redis.tls.trust-store", certificates.trustStore().toString());
            if (!passwordFromCredentialStore()) {
                properties.put(TRUST_STORE_PASSWORD, new String(certificates.trustStorePassword()));
            }
        } else {
            properties.put("lockkit.redis.uri", redis.uri());
        }
        properties.put("lockkit.redis.client-name", clientName(instance));
        properties.put("lockkit.leadership.cleanup.lease", LEADER_LEASE.toMillis() + "ms");
        if (postgres != null) {
            properties.put("itapp.locks-db.url", postgres.jdbcUrl());
        }
        properties.put("itapp.shared-dir", shared.toString());
        properties.put("itapp.instance", instance);
        return properties;
    }

    static final String TRUST_STORE_PASSWORD = "lockkit.redis.tls.trust-store-password";

    /** Whether the trust store's password comes from the server's credential store (Payara Server's password aliases). */
    boolean passwordFromCredentialStore() {
        return kind == ServerKind.PAYARA_SERVER;
    }

    /** Every Redis connection of instance a is on the TLS port, and the factory says {@code rediss://}. */
    void assertConnectionsOfAAreTls() {
        Assumptions.assumeTrue(
                tlsPort != 0, "TLS Redis unavailable here (see the warning at the start); this run used redis://");
        a.http.post("counter/tls-c/locked").ok();
        List<String> clients = Inspect.redisClients(redis, clientName("a"));
        report("Redis connections of a: " + clients.size() + " on the TLS port " + tlsPort + ": "
                + clients.stream().allMatch(l -> l.contains(":" + tlsPort + " ")));
        assertThat(a.http.get("factory").ok()).contains("rediss://");
        assertThat(clients)
                .isNotEmpty()
                .allSatisfy(line -> assertThat(line).contains(" laddr=127.0.0.1:" + tlsPort + " "));
    }

    /** The trust store's password, as the tests made it (empty before the start). */
    String trustStorePassword() {
        return certificates == null ? "" : new String(certificates.trustStorePassword());
    }

    static String clientName(String instance) {
        return "lockkit-it-" + instance;
    }

    @AfterAll
    void stopServers() {
        for (AutoCloseable closeable : new AutoCloseable[] {a, b, redis, postgres}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    report("closing " + closeable + " failed: " + e);
                }
            }
        }
        if (classStarted != 0) {
            report("done in " + Processes.elapsedSince(classStarted).toSeconds() + " s");
        }
    }

    @Test
    @Order(1)
    void injectedFactoryIsUsableOnBothInstances() {
        assertThat(a.http.get("factory").ok()).isNotBlank();
        assertThat(b.http.get("factory").ok()).isNotBlank();
    }

    @Test
    @Order(2)
    void lockedReadPauseWriteCounterCountsEveryIncrementAcrossTwoInstances() throws Exception {
        List<Http.Response> responses = concurrently(20, a, b, server -> server.http.post("counter/locked-c/locked"));
        responses.forEach(Http.Response::ok);
        assertThat(a.http.get("counter/locked-c").ok()).isEqualTo("40");
        assertThat(Inspect.sharedLog(shared, "overlaps", "counter-locked-c")).isEmpty();
    }

    @Test
    @Order(3)
    void unlockedReadPauseWriteCounterLosesUpdatesAsTheNegativeControl() throws Exception {
        List<Http.Response> responses =
                concurrently(20, a, b, server -> server.http.post("counter/unlocked-c/unlocked"));
        responses.forEach(Http.Response::ok);
        int value = Integer.parseInt(a.http.get("counter/unlocked-c").ok());
        report("negative control: 40 unlocked increments left the counter at " + value + ", "
                + Inspect.sharedLog(shared, "overlaps", "counter-unlocked-c").size() + " overlaps");
        assertThat(value).isLessThan(40);
        assertThat(Inspect.sharedLog(shared, "overlaps", "counter-unlocked-c")).isNotEmpty();
    }

    @Test
    @Order(4)
    void lockedTransactionalMethodBooksEachSlotOnce() throws Exception {
        assertNoDuplicateBookings("locked-transactional");
    }

    @Test
    @Order(5)
    void lockedMethodCalledInsideATransactionBooksEachSlotOnce() throws Exception {
        assertNoDuplicateBookings("transactional-calls-locked");
    }

    @Test
    @Order(6)
    void lockedEjbMethodInAContainerManagedTransactionBooksEachSlotOnce() throws Exception {
        assertNoDuplicateBookings("ejb");
    }

    /**
     * 10 slots, 4 concurrent bookers each (submitted slot by slot, so the bookers of a slot run
     * together), on instance a (each instance has its own default datasource).
     */
    private void assertNoDuplicateBookings(String variant) throws Exception {
        int slots = 10;
        int bookers = 4;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Http.Response>> calls = new ArrayList<>();
            for (int slot = 0; slot < slots; slot++) {
                for (int booker = 0; booker < bookers; booker++) {
                    String path = "bookings/" + variant + "-" + slot + "/" + variant + "?who=" + booker;
                    calls.add(pool.submit(() -> a.http.post(path)));
                }
            }
            int booked = 0;
            List<String> failures = new ArrayList<>();
            for (Future<Http.Response> call : calls) {
                Http.Response response = call.get(5, TimeUnit.MINUTES);
                if (response.status() != 200) {
                    failures.add("HTTP " + response.status() + ": " + response.readable());
                } else if (response.body().equals("true")) {
                    booked++;
                }
            }
            int duplicates = 0;
            for (int slot = 0; slot < slots; slot++) {
                long rows = Long.parseLong(
                        a.http.get("bookings/" + variant + "-" + slot).ok());
                duplicates += (int) Math.max(0, rows - 1);
            }
            report(variant + ": " + calls.size() + " bookings of " + slots + " slots: " + booked + " booked, "
                    + duplicates + " duplicate rows, " + failures.size() + " failed requests");
            assertThat(failures).as("failed booking requests").isEmpty();
            assertThat(duplicates).as("duplicate rows").isZero();
            assertThat(booked).isEqualTo(slots);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Order(7)
    void asyncLockedMethodHoldsTheLockUntilItsStageCompletes() throws Exception {
        long millis = 300;
        long started = System.nanoTime();
        List<CompletableFuture<Http.Response>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            calls.add(a.http.postAsync("report/r1?millis=" + millis));
            calls.add(b.http.postAsync("report/r1?millis=" + millis));
        }
        for (CompletableFuture<Http.Response> call : calls) {
            assertThat(call.get(5, TimeUnit.MINUTES).ok()).isIn("a", "b");
        }
        Duration took = Processes.elapsedSince(started);
        assertThat(Inspect.sharedLog(shared, "overlaps", "report-r1")).isEmpty();
        assertThat(Inspect.sharedLog(shared, "events", "report-r1 enter")).hasSize(6);
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(6 * millis));
    }

    @Test
    @Order(8)
    void skipMethodDoesNotRunWhileAnotherInstanceHoldsItsLock() throws Exception {
        CompletableFuture<Http.Response> holder = a.http.postAsync("job/j1?millis=4000");
        await("a inside job j1")
                .atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> Files.exists(shared.resolve("inside-job-j1")) || holder.isDone());
        assertThat(holder)
                .as("a's call ended before it was seen inside: %s", holder.getNow(null))
                .isNotDone();
        assertThat(b.http.post("job/j1?millis=0").ok()).isEqualTo("skipped");
        assertThat(holder.get(5, TimeUnit.MINUTES).ok()).isEqualTo("ran");
        assertThat(b.http.post("job/j1?millis=0").ok()).isEqualTo("ran");
        assertThat(Inspect.sharedLog(shared, "events", "job-j1 enter")).hasSize(2);
    }

    @Test
    @Order(9)
    void lockkitThreadsNameThemselves() {
        a.http.post("counter/threads-c/locked").ok();
        String names = a.http.get("threads").ok();
        report("threads named lockkit in a: " + names.replace('\n', ','));
        List<String> dump = Inspect.lockkitThreads(a.javaPid());
        report("threads running lockkit code or named lockkit in a (jcmd Thread.print): " + dump);
        assertThat(names.lines()).as("threads whose name starts with lockkit").isNotEmpty();
        // jcmd's first line of a thread: "name" #id [tid] daemon prio=… (no "daemon" for a user thread).
        assertThat(dump.stream().filter(line -> line.startsWith("\"lockkit")))
                .as("threads named lockkit, also those a container's ManagedThreadFactory made, are daemon threads")
                .isNotEmpty()
                .allSatisfy(line -> assertThat(line).contains(" daemon "));
    }

    @Test
    @Order(10)
    void readinessCheckIsUpAndReportsTheRedisBackend() throws Exception {
        java.util.Optional<java.net.URI> url = a.readinessUrl();
        org.junit.jupiter.api.Assumptions.assumeTrue(
                url.isPresent(), "MicroProfile Health is not enabled on this server in the tests");
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(url.get())
                                .timeout(Duration.ofSeconds(30))
                                .GET()
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
        report("readiness of a: HTTP " + response.statusCode() + " "
                + response.body().replaceAll("\\s+", " "));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body().replaceAll("\\s+", ""))
                .contains("\"name\":\"lockkit\",\"status\":\"UP\"")
                .contains("\"backend\":\"JedisLockProvider[" + (tlsPort != 0 ? "rediss" : "redis") + "://")
                .contains("\"watchdog\":");
    }

    /**
     * Two EJB calendar timers fire every 2 s on both instances: the one under {@code @Locked}
     * (through {@code @AroundTimeout}, the lock named by the period) runs once per period across
     * the two, the same job without the lock runs on both (the negative control).
     */
    @Test
    @Order(11)
    void scheduledTimerUnderLockedRunsOncePerPeriodAcrossTwoInstances() {
        await("six periods in which the unlocked timer fired on both instances")
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> periodsFiredByBoth().size() >= 6);
        List<Long> both = periodsFiredByBoth();
        // The newest period's locked run may still be on its way: judge the older ones.
        List<Long> judged = both.subList(0, both.size() - 1);
        Map<Long, List<String>> locked = ticks("locked");
        List<String> duplicates = new ArrayList<>();
        locked.forEach((period, runs) -> {
            if (runs.size() > 1) {
                duplicates.add(period + " " + runs);
            }
        });
        List<Long> missing = judged.stream().filter(p -> !locked.containsKey(p)).toList();
        report("timers: " + judged.size() + " periods fired on both instances unlocked; the @Locked timer ran in "
                + judged.stream().filter(locked::containsKey).count() + " of them, on "
                + locked.values().stream()
                        .flatMap(List::stream)
                        .distinct()
                        .sorted()
                        .toList()
                + ", " + duplicates.size() + " periods twice");
        report("timers: periods in which the two instances' timers disagreed on their next timeout"
                + " (the timer's own idea of the period): " + disagreeingNextTimeouts());
        assertThat(duplicates)
                .as("periods whose @Locked timer ran on both instances")
                .isEmpty();
        assertThat(missing)
                .as("periods both instances fired without the @Locked timer running")
                .isEmpty();
    }

    /**
     * The leader-only EJB timer ({@code CleanupJob}, the recipe): fired on both instances each period,
     * it does its work on the instance that leads {@code cleanup} only, once per period, with that
     * instance's term.
     */
    @Test
    @Order(11)
    void scheduledTimerOfTheLeaderRunsOnlyOnTheInstanceThatLeads() {
        String leader = awaitOneLeader();
        await("four periods both instances' timers fired in after the leader's timer first did the work")
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> periodsJudgedForTheLeader().size() >= 4);
        List<Long> judged = periodsJudgedForTheLeader();
        Map<Long, List<String>> runs = ticks("leader");
        // A timer that fired more than half a period late records its run in the next period, beside
        // that period's own run (one instance, two runs): count the runs, not the periods with one.
        long first = judged.get(0);
        long last = judged.get(judged.size() - 1);
        List<String> ranInWindow = runs.entrySet().stream()
                .filter(e -> e.getKey() >= first && e.getKey() <= last + TIMER_PERIOD_MILLIS)
                .flatMap(e -> e.getValue().stream())
                .toList();
        List<String> twice = new ArrayList<>();
        runs.forEach((period, instances) -> {
            if (instances.stream().distinct().count() > 1) {
                twice.add(period + " " + instances);
            }
        });
        List<String> ranOn =
                runs.values().stream().flatMap(List::stream).distinct().sorted().toList();
        List<Long> missing = judged.stream().filter(p -> !runs.containsKey(p)).toList();
        report("leader's timer: " + leader + " leads; the timer did the work in " + runs.size() + " periods, on "
                + ranOn + "; " + judged.size() + " periods judged, " + ranInWindow.size() + " runs in them (and the"
                + " period after), periods without a run: " + missing + ", periods with runs of both instances: "
                + twice);
        assertThat(twice)
                .as("periods whose leader-only timer did the work on both instances")
                .isEmpty();
        assertThat(ranOn).as("instances whose leader-only timer did the work").containsExactly(leader.split(" ")[0]);
        assertThat(ranInWindow.size())
                .as("runs of the leader's timer in the %d judged periods (and the one after)", judged.size())
                .isGreaterThanOrEqualTo(judged.size());
    }

    /**
     * Periods both instances' unlocked timers fired in, after the first period the leader's timer did
     * the work in, but the newest (its runs may be on their way).
     */
    private List<Long> periodsJudgedForTheLeader() {
        long firstRun = ticks("leader").keySet().stream().findFirst().orElse(Long.MAX_VALUE);
        List<Long> both = periodsFiredByBoth();
        return both.subList(0, Math.max(0, both.size() - 1)).stream()
                .filter(p -> p > firstRun)
                .toList();
    }

    /**
     * The application declares the leadership {@code cleanup} (lease 3 s): exactly one of the two
     * instances leads, and keeps leading while both are asked for a while; when it steps down, the
     * other leads with a larger token. (The leader left is a, whose application the tests that
     * follow undeploy.)
     */
    @Test
    @Order(13)
    void exactlyOneInstanceLeadsAndAStepDownHandsTheLeadOver() {
        String first = awaitOneLeader();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        int rounds = 0;
        List<String> answers = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            String answer =
                    a.http.get("leader").ok() + " / " + b.http.get("leader").ok();
            rounds++;
            if (!answer.equals(leaderAnswers(first))) {
                answers.add(answer);
            }
        }
        report("leadership: " + first + " leads; asked both " + rounds + " times in 5 s, " + answers.size()
                + " answers differed: " + answers);
        assertThat(answers)
                .as("answers of a / b that differed from the first leader's term")
                .isEmpty();
        if (first.startsWith("b ")) {
            long bToken = token(first);
            assertThat(b.http.post("leader/step-down").ok()).isEqualTo("follower");
            String next = awaitOneLeader();
            report("leadership: b stepped down; then " + next + " leads");
            assertThat(next).startsWith("a ");
            assertThat(token(next)).as("a's token after b's term " + bToken).isGreaterThan(bToken);
        }
        String before = awaitOneLeader();
        assertThat(before).startsWith("a ");
        leaderTokenBeforeUndeploy = token(before);
    }

    /** What a and b answer while {@code leader} ({@code "a <token>"}) leads. */
    private static String leaderAnswers(String leader) {
        String term = "leader " + token(leader);
        return leader.startsWith("a ") ? term + " / follower" : "follower / " + term;
    }

    /**
     * Waits until exactly one instance says it leads {@code cleanup} and returns it as {@code "a 7"}
     * (instance and token).
     */
    private String awaitOneLeader() {
        String[] leader = new String[1];
        await("exactly one instance leads cleanup")
                .atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    String fromA = a.http.get("leader").ok();
                    String fromB = b.http.get("leader").ok();
                    if (fromA.startsWith("leader ") == fromB.startsWith("leader ")) {
                        return false;
                    }
                    leader[0] = fromA.startsWith("leader ")
                            ? "a " + fromA.substring("leader ".length())
                            : "b " + fromB.substring("leader ".length());
                    return true;
                });
        return leader[0];
    }

    private static long token(String leader) {
        return Long.parseLong(leader.substring(2).trim());
    }

    /** Periods (start, epoch millis) in which the unlocked timer ran on both instances, oldest first. */
    private List<Long> periodsFiredByBoth() {
        return ticks("unlocked").entrySet().stream()
                .filter(e -> e.getValue().contains("a") && e.getValue().contains("b"))
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
    }

    /** The periods in which a's and b's unlocked timers named different next timeouts, with those timeouts. */
    private List<String> disagreeingNextTimeouts() {
        Map<Long, List<String>> next = new java.util.TreeMap<>();
        for (String line : Inspect.sharedLog(shared, "ticks", " unlocked ")) {
            String[] fields = line.split(" ");
            next.computeIfAbsent(Long.parseLong(fields[2]), p -> new ArrayList<>())
                    .add(fields[0] + " " + fields[4]);
        }
        return next.entrySet().stream()
                .filter(e -> e.getValue().size() == 2
                        && !e.getValue()
                                .get(0)
                                .substring(2)
                                .equals(e.getValue().get(1).substring(2)))
                .map(e -> e.getKey() + " " + e.getValue())
                .toList();
    }

    /** The instances that ran a {@code kind} tick, per period. */
    private Map<Long, List<String>> ticks(String kind) {
        Map<Long, List<String>> byPeriod = new java.util.TreeMap<>();
        for (String line : Inspect.sharedLog(shared, "ticks", " " + kind + " ")) {
            String[] fields = line.split(" ");
            byPeriod.computeIfAbsent(Long.parseLong(fields[2]), p -> new ArrayList<>())
                    .add(fields[0]);
        }
        return byPeriod;
    }

    /** After every call so far (and the timers') returned, no thread of the server holds anything of lockkit. */
    @Test
    @Order(12)
    void noThreadOfTheServerKeepsALockkitThreadLocal() {
        a.http.post("counter/thread-locals-c/locked").ok();
        assertThat(a.http.get("thread-locals").ok())
                .as("ThreadLocal entries holding lockkit objects in a's threads")
                .isEmpty();
    }

    /** Last: on Payara Micro a failed deployment leaves b without the application. */
    @Test
    @Order(30)
    void deploymentWithAWrongRedisUriFailsAndTheLogNamesTheKey() {
        int closed = RedisFixture.freePort();
        String scheme = tlsPort != 0 ? "rediss" : "redis";
        ServerInstance.DeploymentOutcome outcome =
                b.deployWithConfig("lockkit.redis.uri=" + scheme + "://127.0.0.1:" + closed + "\n");
        report("deployment with lockkit.redis.uri=" + scheme + "://127.0.0.1:" + closed + ": "
                + (outcome.deployed() ? "DEPLOYED" : "failed") + "; lines naming the key: "
                + outcome.log()
                        .lines()
                        .filter(line -> line.contains("lockkit.redis.uri"))
                        .limit(3)
                        .toList());
        assertThat(outcome.deployed())
                .as("the misconfigured deployment deployed; log:\n%s", tail(outcome.log()))
                .isFalse();
        assertThat(outcome.log()).contains("lockkit.redis.uri");
        assertThat(outcome.log().lines().filter(line -> line.contains("lockkit.redis.uri")))
                .as("a line naming the key also names the root cause, not only a 'Caused by' further down")
                .anySatisfy(line -> assertThat(line).contains("Connection refused"));
    }

    @Test
    @Order(20)
    void undeployWhileALockedCallRunsKeepsTheLockUntilTheCallReturns() throws Exception {
        try {
            a.http.post("counter/baseline-c/locked").ok();
        } finally {
            baselineThreads = Inspect.lockkitThreads(a.javaPid());
            baselineClients = Inspect.redisClients(redis, clientName("a"));
            report("a before undeploy: " + baselineThreads.size() + " lockkit threads, " + baselineClients.size()
                    + " Redis connections named " + clientName("a"));
        }
        long logBeforeUndeploy = a.logSize();
        CompletableFuture<Http.Response> slow = a.http.postAsync("slow?millis=6000");
        Http.Response other;
        Http.Response undeployedAnswer;
        try {
            await("a inside slow")
                    .atMost(Duration.ofMinutes(1))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> Files.exists(shared.resolve("inside-slow")) || slow.isDone());
            assertThat(slow)
                    .as("a's slow call ended before it was seen inside: %s", slow.getNow(null))
                    .isNotDone();
        } finally {
            undeploy();
        }
        other = b.http.post("slow?millis=0");
        undeployedAnswer = slow.get(5, TimeUnit.MINUTES);
        a.awaitUndeployed();
        List<String> events = Inspect.sharedLog(shared, "events", "slow");
        report("undeploy of a during slow(): a answered HTTP " + undeployedAnswer.status() + ", b answered HTTP "
                + other.status() + "; events: " + events);
        assertThat(other.ok()).isEqualTo("b");
        assertThat(Inspect.sharedLog(shared, "overlaps", "slow"))
                .as("b inside slow while a still was")
                .isEmpty();
        long aExit = time(events, "a slow exit");
        long bEnter = time(events, "b slow enter");
        assertThat(bEnter).as("b entered before a's call returned").isGreaterThanOrEqualTo(aExit);
        String undeployLog = a.logSince(logBeforeUndeploy);
        List<String> drain = undeployLog
                .lines()
                .filter(line -> line.contains("lockkit: closing;"))
                .map(String::strip)
                .toList();
        List<String> leaks = undeployLog
                .lines()
                .filter(line -> line.contains("ThreadLocal")
                        && (line.matches(".*io\\.lockkit\\.(?!it\\.).*") || line.contains("LockHandle")))
                .map(String::strip)
                .toList();
        report("undeploy of a during slow(): drain " + drain + "; ThreadLocal complaints naming lockkit: " + leaks);
        assertThat(drain)
                .as("the drain's line in %s (the factory closed through @PreDestroy)", a.log())
                .isNotEmpty();
        assertThat(leaks)
                .as("the server's leak check found a lockkit ThreadLocal")
                .isEmpty();
    }

    private void undeploy() {
        if (!undeployed) {
            undeployed = true;
            undeployBegan = System.currentTimeMillis();
            undeployLogOffset = a.logSize();
            a.beginUndeploy();
        }
    }

    /**
     * After a's application (the leader of {@code cleanup}, see {@link
     * #exactlyOneInstanceLeadsAndAStepDownHandsTheLeadOver}) began to undeploy: b leads within the
     * drain and a lease (plus slack for a loaded machine), with a larger token, and a's term ended
     * before b's began.
     */
    @Test
    @Order(21)
    void whenTheLeadersApplicationIsUndeployedTheOtherInstanceLeads() {
        Assumptions.assumeTrue(
                leaderTokenBeforeUndeploy != 0, "a did not lead before the undeploy (see the leadership test)");
        if (!undeployed) {
            undeploy();
            a.awaitUndeployed();
        }
        Duration bound = DRAIN_TIMEOUT.plus(LEADER_LEASE).plus(Duration.ofSeconds(30));
        long[] grantedToB = new long[2];
        await("b leads cleanup after a's undeploy")
                .atMost(bound)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    String answer = b.http.get("leader").ok();
                    if (!answer.startsWith("leader ")) {
                        return false;
                    }
                    grantedToB[0] = Long.parseLong(answer.substring("leader ".length()));
                    return true;
                });
        List<String> terms = Inspect.sharedLog(shared, "terms", "");
        long bGranted = terms.stream()
                .filter(line -> line.startsWith("b granted " + grantedToB[0] + " "))
                .mapToLong(line -> Long.parseLong(line.split(" ")[3]))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no 'b granted " + grantedToB[0] + "' in " + terms));
        long aRevoked = terms.stream()
                .filter(line -> line.startsWith("a revoked " + leaderTokenBeforeUndeploy + " "))
                .mapToLong(line -> Long.parseLong(line.split(" ")[3]))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no 'a revoked " + leaderTokenBeforeUndeploy + "' in " + terms));
        // The failure's line and the next (the exception), as the server logged them.
        List<String> logLines = a.logSince(undeployLogOffset).lines().toList();
        List<String> closeFailures = new ArrayList<>();
        for (int i = 0; i < logLines.size(); i++) {
            if (logLines.get(i).contains("lockkit: closing the lock factory failed")) {
                closeFailures.add(String.join(" ", logLines.subList(i, Math.min(i + 2, logLines.size())))
                        .strip());
            }
        }
        report("leadership: a (token " + leaderTokenBeforeUndeploy + ") undeployed; a's term revoked "
                + (aRevoked - undeployBegan) + " ms and b elected (token " + grantedToB[0] + ") "
                + (bGranted - undeployBegan) + " ms after the undeploy began; terms: " + terms);
        assertThat(grantedToB[0])
                .as("b's token after a's " + leaderTokenBeforeUndeploy)
                .isGreaterThan(leaderTokenBeforeUndeploy);
        assertThat(bGranted)
                .as("b's election (wall clock) after a's term was revoked")
                .isGreaterThanOrEqualTo(aRevoked);
        assertThat(Duration.ofMillis(bGranted - undeployBegan))
                .as("from the undeploy to b's election")
                .isLessThanOrEqualTo(bound);
        assertThat(closeFailures)
                .as("a's log after the undeploy began (%s): closing the application's lock factory failed", a.log())
                .isEmpty();
    }

    /**
     * After the undeploy of {@link #undeployWhileALockedCallRunsKeepsTheLockUntilTheCallReturns}: no
     * lockkit thread and no Redis connection of the application is left. The class loaders of that
     * undeployment (a request was running in it) are counted and reported; then an idle
     * undeploy-deploy cycle (no request running) must not leave one more class loader behind, and
     * the new deployment must not run more threads or hold more connections than the first one.
     */
    @Test
    @Order(22)
    void undeployLeavesNoLockkitThreadNorRedisConnectionNorClassLoader() {
        long pid = a.javaPid();
        if (!undeployed) {
            undeploy();
            a.awaitUndeployed();
        }
        SoftAssertions softly = new SoftAssertions();
        int afterBusyUndeploy;
        if (a.undeployLeavesNoApplication()) {
            assertNothingLeft(softly, pid, "after the undeploy during a call");
            afterBusyUndeploy = Inspect.loadedCopies(pid, APP_CLASS);
            report("a after the undeploy during a call: " + afterBusyUndeploy + " class loaders still hold "
                    + APP_CLASS + " after GC; live objects of lockkit and Jedis classes (jcmd GC.class_histogram): "
                    + Inspect.liveObjects(pid, 8, "io.lockkit.", "redis.clients."));
            heapDump(pid, "after-busy-undeploy");
            a.deployAgain();
        } else {
            afterBusyUndeploy = Inspect.loadedCopies(pid, APP_CLASS) - 1;
        }
        warmUp(a);
        // What the server itself keeps of an undeployed application, measured with one without lockkit.
        java.util.OptionalInt control = b.controlApplicationLoadersLeft();
        control.ifPresent(left -> report("control on b: a JAX-RS application without"
                + " lockkit, deployed, called and undeployed, leaves " + left + " class loaders after GC"));
        int deployed = Inspect.loadedCopies(pid, APP_CLASS);

        a.beginUndeploy();
        a.awaitUndeployed();
        if (a.undeployLeavesNoApplication()) {
            assertNothingLeft(softly, pid, "after an idle undeploy");
            boolean weldKeepsOne = kind == ServerKind.WILDFLY || kind == ServerKind.WILDFLY_PREVIEW;
            int afterIdleUndeploy = Inspect.loadedCopiesSettling(
                    pid, APP_CLASS, weldKeepsOne ? deployed : deployed - 1 + control.orElse(0));
            report("a after an idle undeploy: " + afterIdleUndeploy + " class loaders hold " + APP_CLASS
                    + " after GC (before it: " + deployed + ")");
            heapDump(pid, "after-idle-undeploy");
            if (weldKeepsOne) {
                // WildFly's Weld keeps the BeanManager of the last deployment that carried a build
                // compatible extension in a static of its extension translator
                // (BuildServicesImpl.ANN_FACTORY_IMPL_INSTANCE; lock-cdi ships one for Quarkus), and so
                // that deployment's class loader, until the next such deployment replaces it: one at
                // most, never more (the redeploy cycle below asserts no growth). Without that
                // services file the idle undeploy frees its class loader here (checked by hand).
                softly.assertThat(afterIdleUndeploy)
                        .as(
                                "class loaders after an idle undeploy and GC (before: %d; Weld"
                                        + " keeps the last one)",
                                deployed)
                        .isBetween(deployed - 1, deployed);
            } else {
                // At most what the server keeps of the application without lockkit.
                int serverKeeps = control.orElse(0);
                softly.assertThat(afterIdleUndeploy)
                        .as(
                                "class loaders after an idle undeploy and GC (before: %d; the server keeps %d of"
                                        + " an application without lockkit)",
                                deployed, serverKeeps)
                        .isLessThanOrEqualTo(deployed - 1 + serverKeeps);
            }
            a.deployAgain();
        }
        warmUp(a);
        softly.assertThat(a.http.get("thread-locals").ok())
                .as("ThreadLocal entries holding lockkit objects in a's threads after the undeploys")
                .isEmpty();
        List<String> threads = Inspect.lockkitThreads(pid);
        List<String> clients = Inspect.redisClients(redis, clientName("a"));
        int copies = Inspect.loadedCopiesSettling(pid, APP_CLASS, deployed + control.orElse(0));
        report("a after an idle redeploy: " + threads.size() + " lockkit threads (first deployment: "
                + baselineThreads.size() + "), " + clients.size() + " Redis connections (first deployment: "
                + baselineClients.size() + "), " + copies + " class loaders hold " + APP_CLASS
                + " after GC (before the cycle: " + deployed + ", left by the undeploy during a call: "
                + afterBusyUndeploy + "); threads: " + threads);
        softly.assertThat(threads.size())
                .as("lockkit threads after redeploy, compared with the first deployment's")
                .isLessThanOrEqualTo(baselineThreads.size());
        softly.assertThat(clients.size())
                .as("Redis connections after redeploy, compared with the first deployment's")
                .isLessThanOrEqualTo(baselineClients.size());
        softly.assertThat(copies)
                .as(
                        "class loaders after an idle redeploy and GC (before the cycle: %d; the server keeps %d of"
                                + " an application without lockkit)",
                        deployed, control.orElse(0))
                .isLessThanOrEqualTo(deployed + control.orElse(0));
        softly.assertAll();
    }

    /** With -Dlockkit.it.heap-dump=true: a heap dump of the live objects, to find what holds a class loader. */
    private void heapDump(long pid, String name) {
        if (Boolean.getBoolean("lockkit.it.heap-dump")) {
            Path dump = a.dir.resolve(name + ".hprof");
            report("heap dump: " + dump + " "
                    + Processes.jcmd(pid, "GC.heap_dump " + dump).strip());
        }
    }

    /** A locked call and the factory: what makes the application start its lockkit threads and connections. */
    private static void warmUp(ServerInstance server) {
        server.http.get("factory");
        server.http.post("counter/warm-up/locked");
    }

    private void assertNothingLeft(SoftAssertions softly, long pid, String when) {
        List<String> threads;
        List<String> clients;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        do {
            threads = Inspect.lockkitThreads(pid);
            clients = Inspect.redisClients(redis, clientName("a"));
        } while ((!threads.isEmpty() || !clients.isEmpty()) && System.nanoTime() < deadline);
        report("a " + when + ": " + threads.size() + " lockkit threads, " + clients.size() + " Redis connections");
        softly.assertThat(threads).as("lockkit threads " + when).isEmpty();
        softly.assertThat(clients).as("Redis connections " + when).isEmpty();
    }

    private static long time(List<String> events, String prefix) {
        return events.stream()
                .filter(line -> line.startsWith(prefix + " "))
                .mapToLong(line -> Long.parseLong(line.split(" ")[3]))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no event " + prefix + " in " + events));
    }

    /** {@code perInstance} calls on each of a and b, 8 at a time, collected in order. */
    static List<Http.Response> concurrently(
            int perInstance, ServerInstance a, ServerInstance b, Function<ServerInstance, Http.Response> call)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Http.Response>> futures = new ArrayList<>();
            for (int i = 0; i < perInstance; i++) {
                futures.add(pool.submit(() -> call.apply(a)));
                futures.add(pool.submit(() -> call.apply(b)));
            }
            List<Http.Response> responses = new ArrayList<>();
            for (Future<Http.Response> future : futures) {
                responses.add(future.get(5, TimeUnit.MINUTES));
            }
            return responses;
        } finally {
            pool.shutdownNow();
        }
    }

    private static String tail(String log) {
        List<String> lines = log.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    void report(String line) {
        System.out.println("[" + kind.id + "] " + line);
    }

    private static String loud(String message) {
        System.err.println("WARNING: " + message);
        return message;
    }
}
