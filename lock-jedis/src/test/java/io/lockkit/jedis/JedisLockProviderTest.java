package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jedis.internal.ReleaseScript;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.Release;
import io.lockkit.testkit.CountingLockProvider;
import io.lockkit.testkit.redis.CommandMonitor;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Behaviour of the Redis provider beyond the shared contract, against one Redis of its own. */
class JedisLockProviderTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
    private RedisServer redis;

    @BeforeEach
    void setUp() {
        redis = REDIS.server();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private JedisLockProvider provider() {
        JedisLockProvider p = JedisLockProvider.create(redis.uri());
        closeables.add(p);
        return p;
    }

    private DistributedLockFactory factory() {
        DistributedLockFactory f = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()));
        closeables.add(f);
        return f;
    }

    private static String name() {
        return "test:" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    private static LockRequest request(String name, String owner, Duration wait) {
        return new LockRequest(name, owner, Duration.ofSeconds(30), wait);
    }

    /** The name the counted clients give their connections; {@link CommandMonitor} counts only theirs. */
    private static final String COUNTED = "counted";

    private JedisLockProvider countedProvider() {
        JedisLockProvider p =
                JedisLockProvider.builder().uri(redis.uri()).clientName(COUNTED).build();
        closeables.add(p);
        return p;
    }

    private DistributedLockFactory countedFactory() {
        DistributedLockFactory f = DistributedLockFactory.create(countedProvider());
        closeables.add(f);
        return f;
    }

    /** Starts counting the commands of the connections named {@link #COUNTED}; closed after the test. */
    private CommandMonitor monitor() {
        CommandMonitor m = CommandMonitor.start(redis, COUNTED);
        closeables.add(m);
        return m;
    }

    private static long total(Map<String, Long> commands) {
        return commands.values().stream().mapToLong(Long::longValue).sum();
    }

    private static long scripts(Map<String, Long> commands) {
        return commands.getOrDefault("evalsha", 0L) + commands.getOrDefault("eval", 0L);
    }

    // ---- scripts ----

    @Test
    @DisplayName("a flushed script cache is refilled on the next call (NOSCRIPT recovery)")
    void scriptsSurviveAScriptFlush() {
        JedisLockProvider p = provider();
        String name = name();
        assertThat(p.tryAcquire(request(name, "a", Duration.ZERO)).isAcquired()).isTrue();
        redis.command("SCRIPT", "FLUSH");
        assertThat(p.release(name, "a")).isEqualTo(Release.RELEASED);
        redis.command("SCRIPT", "FLUSH");
        assertThat(p.tryAcquire(request(name, "b", Duration.ZERO)).isAcquired()).isTrue();
        redis.command("SCRIPT", "FLUSH");
        assertThat(p.renew(List.of(new io.lockkit.spi.LockProvider.Renewal(name, "b", Duration.ofSeconds(5)))))
                .isEmpty();
    }

    @Test
    @DisplayName("renewals go 100 holds to a script call, all in one pipeline, even right after a script flush")
    void renewalsAreBatchedAndSurviveAScriptFlushInOneRoundTrip() {
        JedisLockProvider p = countedProvider();
        List<io.lockkit.spi.LockProvider.Renewal> renewals = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            String name = name();
            p.tryAcquire(new LockRequest(name, "c:o", Duration.ofSeconds(5), Duration.ZERO));
            renewals.add(new io.lockkit.spi.LockProvider.Renewal(name, "c:o", Duration.ofSeconds(30)));
        }
        String gone = name();
        renewals.add(150, new io.lockkit.spi.LockProvider.Renewal(gone, "c:o", Duration.ofSeconds(30)));
        p.renew(renewals.subList(0, 1)); // opens the pooled connection renewals use (lock calls keep their own)
        redis.command("SCRIPT", "FLUSH");
        CommandMonitor monitor = monitor();
        assertThat(p.renew(renewals)).as("holds found gone").containsExactly(renewals.get(150));
        // The first batch carries the script text (EVAL), which teaches it for the two after it; an
        // EVALSHA refused with NOSCRIPT would count as a third.
        assertThat(monitor.stop()).isEqualTo(Map.of("eval", 1L, "evalsha", 2L));
        for (io.lockkit.spi.LockProvider.Renewal r : renewals) {
            if (!r.name().equals(gone)) {
                assertThat((Long) redis.command("PTTL", "lockkit:{" + r.name() + "}"))
                        .as(r.name())
                        .isGreaterThan(5000);
            }
        }
    }

    @Test
    @DisplayName("a provider closed while its pub/sub connection is still coming up leaves no connection behind")
    void closeDuringThePubSubStartLeavesNoConnection() {
        String clientName =
                "closing-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        for (int i = 0; i < 20; i++) {
            JedisLockProvider p = JedisLockProvider.builder()
                    .uri(redis.uri())
                    .clientName(clientName)
                    .build();
            DistributedLockFactory f = DistributedLockFactory.create(p);
            DistributedLock lock = f.getLock(name());
            lock.lock(); // may wait: starts the pub/sub thread, which connects on its own
            lock.unlock();
            f.close();
            p.close();
        }
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() ->
                        assertThat((String) redis.command("CLIENT", "LIST")).doesNotContain("name=" + clientName));
    }

    @Test
    @DisplayName("an uncontended lock and unlock cost two commands")
    void uncontendedLockAndUnlockCostTwoCommands() {
        DistributedLock lock = countedFactory().getLock(name());
        lock.lock();
        lock.unlock(); // warm the pool up: connection set-up is not per acquisition
        // The first lock() that may wait also started the provider's pub/sub connection: a
        // one-time cost, let it finish before counting.
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> !((List<?>) redis.command("PUBSUB", "CHANNELS", "lockkit:ctl")).isEmpty());
        CommandMonitor monitor = monitor();
        for (int i = 0; i < 10; i++) {
            lock.lock();
            lock.unlock();
        }
        Map<String, Long> sent = monitor.stop();
        long commands = total(sent);
        long scripts = scripts(sent);
        System.out.printf(
                "uncontended lock + unlock: %.1f client commands (%.1f script calls)%n",
                commands / 10.0, scripts / 10.0);
        assertThat(scripts).as("script calls for 10 lock + unlock pairs").isEqualTo(20);
        // Connection upkeep that may fall into the window on a busy machine (a pooled connection
        // made, a keep-alive of the wake-up connection) is not a per-acquisition cost, but it must
        // stay rare.
        assertThat(commands - scripts).as("other commands in that time").isLessThanOrEqualTo(2);
    }

    @Test
    @DisplayName("a reentrant acquisition costs one command and keeps the server's hold count")
    void reentrantAcquisitionIsCountedOnTheServer() {
        JedisLockProvider p = provider();
        String name = name();
        long token = p.tryAcquire(request(name, "me", Duration.ZERO)).fencingToken();
        Acquisition again = p.tryAcquire(request(name, "me", Duration.ZERO));
        assertThat(again.isAcquired()).isTrue();
        assertThat(again.fencingToken()).isEqualTo(token);
        assertThat(p.inspect(name)).get().extracting(LockState::holdCounts).isEqualTo(Map.of("me", 2));
        assertThat(p.release(name, "me")).isEqualTo(Release.STILL_HELD);
        assertThat(p.release(name, "me")).isEqualTo(Release.RELEASED);
        assertThat(p.inspect(name)).isEmpty();
    }

    // ---- hand-over ----

    @Test
    @DisplayName("a release hands the lock to the first waiter, who claims it with one call")
    void releaseHandsTheLockToTheFirstWaiter() {
        JedisLockProvider p = provider();
        String name = name();
        p.tryAcquire(request(name, "holder", Duration.ZERO));
        assertThat(p.tryAcquire(request(name, "first", Duration.ofSeconds(10))).isAcquired())
                .isFalse();
        assertThat(p.tryAcquire(request(name, "second", Duration.ofSeconds(10))).isAcquired())
                .isFalse();
        assertThat(p.tryAcquire(request(name, "barger", Duration.ZERO)).isAcquired())
                .isFalse();

        Release r = p.release(name, "holder");
        assertThat(r).isEqualTo(new Release(Release.Outcome.RELEASED, "first"));
        assertThat(p.tryAcquire(request(name, "barger", Duration.ZERO)).isAcquired())
                .as("handed over, not free")
                .isFalse();
        assertThat(p.tryAcquire(request(name, "first", Duration.ofSeconds(10))).isAcquired())
                .isTrue();
        assertThat(p.release(name, "first").grantee()).isEqualTo("second");
    }

    @Test
    @DisplayName("waiters still get the lock when its hash vanished under them and a newcomer took it")
    void waitersAreServedAfterTheHashWasDeletedUnderThem() {
        JedisLockProvider p = provider();
        String name = name();
        p.tryAcquire(request(name, "holder", Duration.ZERO));
        assertThat(p.tryAcquire(request(name, "waiter", Duration.ofSeconds(10))).isAcquired())
                .isFalse();
        redis.command("DEL", "lockkit:{" + name + "}"); // as an eviction, a DEL or an expiry would
        assertThat(p.tryAcquire(request(name, "newcomer", Duration.ZERO)).isAcquired())
                .isTrue();
        assertThat(p.release(name, "newcomer").grantee())
                .as("the newcomer's release hands over")
                .isEqualTo("waiter");
        assertThat(p.tryAcquire(request(name, "waiter", Duration.ofSeconds(10))).isAcquired())
                .isTrue();
    }

    @Test
    @DisplayName("a waiter that finds the lock free leaves no queue entry behind")
    void acquiringOnAFreeLockRemovesTheOwnersQueueEntry() {
        JedisLockProvider p = provider();
        String name = name();
        p.tryAcquire(request(name, "holder", Duration.ZERO));
        assertThat(p.tryAcquire(request(name, "waiter", Duration.ofSeconds(10))).isAcquired())
                .isFalse();
        assertThat(redis.command("ZSCORE", "lockkit:{" + name + "}:q", "waiter"))
                .isNotNull();
        redis.command("DEL", "lockkit:{" + name + "}");
        assertThat(p.tryAcquire(request(name, "waiter", Duration.ofSeconds(10))).isAcquired())
                .isTrue();
        assertThat(redis.command("ZSCORE", "lockkit:{" + name + "}:q", "waiter"))
                .as("queue entry")
                .isNull();
        assertThat(p.release(name, "waiter")).isEqualTo(Release.RELEASED);
        assertThat(redis.command("HGET", "lockkit:{" + name + "}", "~w"))
                .as("queue mark after the queue emptied")
                .isNull();
    }

    @Test
    @DisplayName("a release prefers a waiter of its own process, for a bounded number of hand-overs in a row")
    void releasePrefersALocalWaiterBoundedly() {
        JedisLockProvider p =
                JedisLockProvider.builder().uri(redis.uri()).localHandOffs(1).build();
        closeables.add(p);
        String name = name();
        p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
        p.tryAcquire(request(name, "c2:older", Duration.ofSeconds(10)));
        p.tryAcquire(request(name, "c1:a", Duration.ofSeconds(10)));
        p.tryAcquire(request(name, "c1:b", Duration.ofSeconds(10)));
        assertThat(p.release(name, "c1:holder").grantee()).isEqualTo("c1:a");
        assertThat(p.tryAcquire(request(name, "c1:a", Duration.ofSeconds(10))).isAcquired())
                .isTrue();
        assertThat(p.release(name, "c1:a").grantee())
                .as("after one local hand-over the oldest waiter")
                .isEqualTo("c2:older");
    }

    /** An attempt of wait {@code waitId} that will wait up to 10 s, with the given lease. */
    private static LockRequest inWait(String name, String owner, long waitId, Duration lease) {
        return new LockRequest(name, owner, lease, Duration.ofSeconds(10), waitId);
    }

    private static int holdCount(io.lockkit.spi.LockProvider p, String name, String owner) {
        return p.inspect(name).map(s -> s.holdCounts().getOrDefault(owner, -1)).orElse(-1);
    }

    /** A listener that adds every published grantee (or "null" for a free lock) to {@code grantees}. */
    private static WakeUpListener recordingGrantees(List<String> grantees) {
        return new WakeUpListener() {
            @Override
            public void released(String grantee) {
                grantees.add(String.valueOf(grantee));
            }

            @Override
            public void missedNotifications() {}
        };
    }

    /** The hold count of whoever holds the lock, or -1 when it is free. */
    private static int holdCount(io.lockkit.spi.LockProvider p, String name) {
        return p.inspect(name)
                .map(s -> s.holdCounts().values().iterator().next())
                .orElse(-1);
    }

    @Test
    @DisplayName(
            "tokens past 2^53 stay exact on every path: a new hold, reentry, inspect, a grant and its retry, a hand-over's claim")
    void tokensPastTwoToThe53StayExact() throws Exception {
        JedisLockProvider p = provider();
        String name = name();
        String base = "lockkit:{" + name + "}";
        long start = (1L << 53) + 1; // the first integer a Lua number (a double) cannot hold
        redis.command("HSET", base, "~t", Long.toString(start - 1)); // a free lock whose last token was 2^53
        assertThat(p.tryAcquire(request(name, "c1:holder", Duration.ZERO)).fencingToken())
                .as("a new hold")
                .isEqualTo(start);
        assertThat(p.tryAcquire(request(name, "c1:holder", Duration.ZERO)).fencingToken())
                .as("reentry")
                .isEqualTo(start);
        assertThat(p.inspect(name).map(LockState::fencingToken)).as("inspect").contains(start);
        assertThat(p.release(name, "c1:holder")).isEqualTo(Release.STILL_HELD);
        assertThat(p.tryAcquire(inWait(name, "c1:waiter", 7, Duration.ofSeconds(20)))
                        .isAcquired())
                .isFalse();

        String[] release = releaseCall(base, "c1:holder", "nonce-big");
        Object granted = redis.command(release);
        assertThat(ReleaseScript.decode(granted))
                .as("a grant")
                .isEqualTo(new ReleaseScript.Granted("c1:waiter", start + 1, 7));
        assertThat(ReleaseScript.decode(redis.command(release)))
                .as("the retried release answering the same grant")
                .isEqualTo(new ReleaseScript.Granted("c1:waiter", start + 1, 7));
        assertThat(p.tryAcquire(inWait(name, "c1:waiter", 7, Duration.ofSeconds(20)))
                        .fencingToken())
                .as("the granted wait taking its grant")
                .isEqualTo(start + 1);

        assertThat(p.tryAcquire(inWait(name, "c2:remote", 3, Duration.ofSeconds(20)))
                        .isAcquired())
                .isFalse();
        assertThat(p.release(name, "c1:waiter")).isEqualTo(new Release(Release.Outcome.RELEASED, "c2:remote"));
        assertThat(p.tryAcquire(inWait(name, "c2:remote", 3, Duration.ofSeconds(20)))
                        .fencingToken())
                .as("the claim of a hand-over")
                .isEqualTo(start + 2);
        assertThat(p.inspect(name).map(LockState::fencingToken))
                .as("inspect of the claimed hold")
                .contains(start + 2);
    }

    /** release.lua's EVAL for a release of {@code owner} by client {@code c1:} with {@code nonce}, as the provider sends it. */
    private static String[] releaseCall(String base, String owner, String nonce) throws java.io.IOException {
        String script;
        try (var in = JedisLockProvider.class.getResourceAsStream("internal/release.lua")) {
            script = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        return new String[] {
            "EVAL",
            script,
            "3",
            base,
            base + ":q",
            base + ":qd",
            owner,
            "release",
            "2000",
            "60000",
            base + ":c",
            "PUBLISH",
            "c1:",
            "8",
            nonce,
            "0"
        };
    }

    @Test
    @DisplayName(
            "a release grants the lock outright to a waiter of its own client: held once, with that waiter's lease")
    void localWaiterIsGrantedTheLockOutright() {
        JedisLockProvider p = provider();
        String name = name();
        long held = p.tryAcquire(request(name, "c1:holder", Duration.ZERO)).fencingToken();
        assertThat(p.tryAcquire(inWait(name, "c1:waiter", 7, Duration.ofSeconds(20)))
                        .isAcquired())
                .isFalse();

        Release r = p.release(name, "c1:holder");

        assertThat(r.outcome()).isEqualTo(Release.Outcome.RELEASED);
        assertThat(r.grantee()).isEqualTo("c1:waiter");
        assertThat(r.granted()).isTrue();
        assertThat(r.grantWaitId()).isEqualTo(7);
        assertThat(r.grantToken()).isGreaterThan(held);
        LockState state = p.inspect(name).orElseThrow();
        assertThat(state.holdCounts()).isEqualTo(Map.of("c1:waiter", 1));
        assertThat(state.remainingLease())
                .as("the waiter's lease, not the claim timeout")
                .isGreaterThan(Duration.ofSeconds(15))
                .isLessThanOrEqualTo(Duration.ofSeconds(20));
        assertThat(redis.command("ZSCORE", "lockkit:{" + name + "}:q", "c1:waiter"))
                .as("queue entry")
                .isNull();
        assertThat(p.release(name, "c1:waiter")).isEqualTo(Release.RELEASED);
        assertThat(p.inspect(name)).isEmpty();
    }

    @Test
    @DisplayName(
            "a waiter that did not say which wait it is in, or of another client of an earlier version, still claims the hand-over")
    void otherWaitersStillClaim() {
        JedisLockProvider p = provider();
        String name = name();
        String base = "lockkit:{" + name + "}";
        p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
        // A waiter of another client of an earlier version: its request lacks ":g" (it hears no grants).
        redis.command("ZADD", base + ":q", "1", "c2:remote");
        redis.command("HSET", base + ":qd", "c2:remote", Long.toString(System.currentTimeMillis() + 30_000));
        redis.command("HSET", base + ":qd", "c2:remote\0g", "30000:3");
        p.tryAcquire(request(name, "c1:anonymous", Duration.ofSeconds(10)));

        assertThat(p.release(name, "c1:holder"))
                .as("local first, but without a wait id: a claim")
                .isEqualTo(new Release(Release.Outcome.RELEASED, "c1:anonymous"));
        assertThat(holdCount(p, name, "c1:anonymous")).isZero();
        assertThat(p.tryAcquire(request(name, "c1:anonymous", Duration.ofSeconds(10)))
                        .isAcquired())
                .isTrue();
        assertThat(p.release(name, "c1:anonymous"))
                .as("another client's waiter that hears no grants: a claim")
                .isEqualTo(new Release(Release.Outcome.RELEASED, "c2:remote"));
        assertThat(holdCount(p, name, "c2:remote")).isZero();
    }

    @Test
    @DisplayName(
            "a waiter of another client gets the lock outright, for the claim timeout, and its client hears the grant")
    void waitersOfOtherClientsHearTheirGrant() {
        JedisLockProvider p = provider();
        String name = name();
        List<String> heard = new CopyOnWriteArrayList<>();
        closeables.add(p.subscribe(name, new WakeUpListener() {
            @Override
            public void released(String grantee) {
                heard.add("released to " + grantee);
            }

            @Override
            public void missedNotifications() {}

            @Override
            public void granted(String grantee, long waitId, long token, Duration lease) {
                heard.add(grantee + " " + waitId + " " + token + " " + lease);
            }
        }));
        p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
        p.tryAcquire(inWait(name, "c2:remote", 3, Duration.ofSeconds(30)));

        assertThat(p.release(name, "c1:holder"))
                .as("answered as a hand-over: the releasing client has nobody to pass a token to")
                .isEqualTo(new Release(Release.Outcome.RELEASED, "c2:remote"));
        LockState state = p.inspect(name).orElseThrow();
        assertThat(state.holdCounts()).isEqualTo(Map.of("c2:remote", 1));
        assertThat(state.remainingLease())
                .as("the claim timeout, not the waiter's 30 s")
                .isLessThanOrEqualTo(JedisLockProvider.DEFAULT_CLAIM_TIMEOUT);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(heard)
                        .containsExactly(
                                "c2:remote 3 " + state.fencingToken() + " " + JedisLockProvider.DEFAULT_CLAIM_TIMEOUT));

        Acquisition again = p.tryAcquire(inWait(name, "c2:remote", 3, Duration.ofSeconds(30)));
        assertThat(again.fencingToken())
                .as("the granted wait's own attempt takes the same hold")
                .isEqualTo(state.fencingToken());
        assertThat(holdCount(p, name, "c2:remote")).isEqualTo(1);
        assertThat(p.inspect(name).orElseThrow().remainingLease())
                .as("with its own lease from then on")
                .isGreaterThan(Duration.ofSeconds(20));
    }

    @Test
    @DisplayName(
            "a waiter of another process takes the lock a release grants it without a call, and its watchdog renews the claim-timeout lease early")
    void aGrantHeardFromAnotherProcessIsTakenWithoutACallAndRenewedEarly() throws Exception {
        DistributedLockFactory holding = factory();
        CountingLockProvider counting = new CountingLockProvider(JedisLockProvider.create(redis.uri()));
        DistributedLockFactory waiting = DistributedLockFactory.create(counting);
        closeables.add(waiting);
        JedisLockProvider inspecting = provider();
        String name = name();
        LockHandle first = holding.acquire(name, LockOptions.noWait());
        java.util.concurrent.CompletableFuture<LockHandle> second = new java.util.concurrent.CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                second.complete(waiting.acquire(
                        name,
                        LockOptions.builder().waitAtMost(Duration.ofSeconds(30)).build()));
            } catch (Throwable e) {
                second.completeExceptionally(e);
            }
        });
        waiter.start();
        // The first attempt, and the one after subscribing; then the waiter parks.
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> counting.acquisitions() == 2 && waiter.getState() == Thread.State.TIMED_WAITING);
        first.release();
        LockHandle h = second.get(10, TimeUnit.SECONDS);

        assertThat(counting.acquisitions())
                .as("attempts of the waiter after the grant")
                .isEqualTo(2);
        LockState granted = inspecting.inspect(name).orElseThrow();
        assertThat(granted.fencingToken()).isEqualTo(h.fencingToken());
        assertThat(granted.remainingLease())
                .as("the grant's lease in Redis: the claim timeout")
                .isLessThanOrEqualTo(JedisLockProvider.DEFAULT_CLAIM_TIMEOUT);
        assertThat(h.remainingLease())
                .as("the lease the waiter counts: at most the claim timeout, from its own latest attempt")
                .isLessThanOrEqualTo(JedisLockProvider.DEFAULT_CLAIM_TIMEOUT);
        await("the watchdog renews the short first lease to the whole watchdog lease")
                .atMost(Duration.ofSeconds(10))
                .until(() ->
                        inspecting.inspect(name).orElseThrow().remainingLease().compareTo(Duration.ofSeconds(20)) > 0);
        assertThat(h.isValid()).isTrue();
        assertThat(h.remainingLease()).isGreaterThan(Duration.ofSeconds(20));
        h.release();
        assertThat(inspecting.inspect(name)).isEmpty();
    }

    @Test
    @DisplayName("a grant to a waiter of another client that died lapses after the claim timeout")
    void deadWaiterOfAGrantCostsOneClaimTimeout() {
        String name = name();
        assertDeadWaiterCostsOneClaimTimeout(
                name,
                inWait(name, "c2:dead", 5, Duration.ofSeconds(30)),
                holdCount -> assertThat(holdCount).as("granted outright").isEqualTo(1));
    }

    @Test
    @DisplayName("queue entries stay readable by earlier versions, and their entries get a hand-over to claim")
    void queueEntriesOfEarlierVersions() {
        JedisLockProvider p = provider();
        String name = name();
        String base = "lockkit:{" + name + "}";
        p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
        p.tryAcquire(inWait(name, "c1:new", 7, Duration.ofSeconds(30)));
        assertThat((String) redis.command("HGET", base + ":qd", "c1:new"))
                .as("the deadline, a plain number as before")
                .matches("\\d+");

        // A waiter of an earlier version, queued first: its entry holds the deadline alone.
        long deadline = System.currentTimeMillis() + 30_000;
        redis.command("ZADD", base + ":q", "1", "c1:old");
        redis.command("HSET", base + ":qd", "c1:old", Long.toString(deadline));

        assertThat(p.release(name, "c1:holder")).isEqualTo(new Release(Release.Outcome.RELEASED, "c1:old"));
        assertThat(holdCount(p, name, "c1:old")).isZero();
        assertThat(p.tryAcquire(request(name, "c1:old", Duration.ofSeconds(30))).isAcquired())
                .isTrue();
        assertThat(p.release(name, "c1:old").granted())
                .as("the new version's waiter next, outright")
                .isTrue();
    }

    @Test
    @DisplayName("an attempt of the granted wait that meets the grant takes the same hold, not a second one")
    void theGrantedWaitsOwnAttemptDoesNotCountTwice() {
        JedisLockProvider p = provider();
        String name = name();
        p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
        p.tryAcquire(inWait(name, "c1:waiter", 7, Duration.ofSeconds(30)));
        Release r = p.release(name, "c1:holder");

        Acquisition racing = p.tryAcquire(inWait(name, "c1:waiter", 7, Duration.ofSeconds(30)));
        assertThat(racing.isAcquired()).isTrue();
        assertThat(racing.fencingToken()).isEqualTo(r.grantToken());
        assertThat(holdCount(p, name, "c1:waiter")).isEqualTo(1);
        assertThat(p.release(name, "c1:waiter")).isEqualTo(Release.RELEASED);
    }

    @Test
    @DisplayName(
            "an attempt of the granted wait that meets the grant sets its lease anew, as its client counts it from that attempt")
    void meetingTheGrantSetsTheLeaseAnew() {
        JedisLockProvider p = provider();
        String name = name();
        p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
        p.tryAcquire(inWait(name, "c1:waiter", 7, Duration.ofSeconds(20)));
        assertThat(p.release(name, "c1:holder").granted()).isTrue();
        // Most of the grant's lease went by before the waiter looked (a release it never heard of).
        redis.command("PEXPIRE", "lockkit:{" + name + "}", "300");

        assertThat(p.tryAcquire(inWait(name, "c1:waiter", 7, Duration.ofSeconds(20)))
                        .isAcquired())
                .isTrue();

        assertThat(p.inspect(name).orElseThrow().remainingLease())
                .as("the lease from the attempt that found the grant")
                .isGreaterThan(Duration.ofSeconds(15));
        assertThat(holdCount(p, name, "c1:waiter")).isEqualTo(1);
    }

    @Test
    @DisplayName(
            "a hold taken in a wait whose answer never reached the client is given back by that wait's abandon, and only by it")
    void aHoldTakenInAnUnansweredWaitIsGivenBackByItsAbandon() {
        JedisLockProvider p = provider();
        String name = name();
        assertThat(p.tryAcquire(inWait(name, "c1:waiter", 5, Duration.ofSeconds(20)))
                        .isAcquired())
                .isTrue();
        assertThat(p.tryAcquire(inWait(name, "c1:waiter", 5, Duration.ofSeconds(20)))
                        .isAcquired())
                .as("the retry of that attempt")
                .isTrue();
        assertThat(holdCount(p, name, "c1:waiter"))
                .as("a retry takes the same hold")
                .isEqualTo(1);
        p.abandon(name, "c1:waiter", 4);
        assertThat(holdCount(p, name, "c1:waiter"))
                .as("another wait's abandon leaves it")
                .isEqualTo(1);

        p.abandon(name, "c1:waiter", 5);

        assertThat(p.inspect(name)).isEmpty();
    }

    @Test
    @DisplayName(
            "a release retried after its reply was lost answers the grant it made, so the grantee still hears of it")
    void aRetriedReleaseAnswersItsGrant() throws Exception {
        JedisLockProvider p = provider();
        String name = name();
        String base = "lockkit:{" + name + "}";
        p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
        p.tryAcquire(inWait(name, "c1:waiter", 7, Duration.ofSeconds(20)));
        String script;
        try (var in = JedisLockProvider.class.getResourceAsStream("internal/release.lua")) {
            script = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        String[] call = {
            "EVAL",
            script,
            "3",
            base,
            base + ":q",
            base + ":qd",
            "c1:holder",
            "release",
            "2000",
            "60000",
            base + ":c",
            "PUBLISH",
            "c1:",
            "8",
            "nonce-1",
            "0"
        };

        Object first = redis.command(call);
        Object retried = redis.command(call);

        assertThat(first)
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
                .hasSize(3)
                .first()
                .asString()
                .isEqualTo("c1:waiter");
        assertThat(ReleaseScript.decode(retried))
                .as("the same call again (its token may come back as digits: a string)")
                .isEqualTo(ReleaseScript.decode(first));
        assertThat(holdCount(p, name, "c1:waiter")).isEqualTo(1);
        assertThat(p.release(name, "c1:waiter")).isEqualTo(Release.RELEASED);
        assertThat(redis.command(call))
                .as("once the grantee released, the retry finds nothing")
                .isEqualTo(-1L);
    }

    @Test
    @DisplayName("a later wait of the grantee re-enters the granted hold: the count rises")
    void aLaterWaitOfTheGranteeIsReentrant() {
        JedisLockProvider p = provider();
        String name = name();
        p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
        p.tryAcquire(inWait(name, "c1:waiter", 7, Duration.ofSeconds(30)));
        Release r = p.release(name, "c1:holder");

        Acquisition again = p.tryAcquire(inWait(name, "c1:waiter", 8, Duration.ofSeconds(30)));
        assertThat(again.fencingToken()).isEqualTo(r.grantToken());
        assertThat(holdCount(p, name, "c1:waiter")).isEqualTo(2);
        p.abandon(name, "c1:waiter", 8);
        p.abandon(name, "c1:waiter", 0);
        assertThat(holdCount(p, name, "c1:waiter"))
                .as("abandoning other waits leaves the hold")
                .isEqualTo(2);
        assertThat(p.release(name, "c1:waiter")).isEqualTo(Release.STILL_HELD);
        assertThat(p.release(name, "c1:waiter")).isEqualTo(Release.RELEASED);
    }

    @Test
    @DisplayName(
            "a wait that ends without learning of its grant gives the lock back, and it goes on to the next waiter")
    void abandoningTheGrantedWaitPassesTheLockOn() throws Exception {
        JedisLockProvider p = provider();
        String name = name();
        List<String> published = new CopyOnWriteArrayList<>();
        try (var subscription = p.subscribe(name, recordingGrantees(published))) {
            p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
            p.tryAcquire(inWait(name, "c1:quitter", 7, Duration.ofSeconds(30)));
            p.tryAcquire(inWait(name, "c1:patient", 9, Duration.ofSeconds(30)));
            assertThat(p.release(name, "c1:holder").granted()).isTrue();

            p.abandon(name, "c1:quitter", 7);

            assertThat(holdCount(p, name, "c1:quitter")).isEqualTo(-1);
            assertThat(holdCount(p, name, "c1:patient"))
                    .as("passed on by an abandon: granted outright, and announced (an abandon's release has no"
                            + " releasing process to pass a token on)")
                    .isEqualTo(1);
            await().atMost(Duration.ofSeconds(5)).until(() -> published.contains("c1:patient"));
            assertThat(p.tryAcquire(inWait(name, "c1:patient", 9, Duration.ofSeconds(30)))
                            .isAcquired())
                    .isTrue();
        }
    }

    /** Can hold the next release's answer back until a gate opens; notes the first abandoned wait. */
    private static final class Gated extends io.lockkit.spi.support.ForwardingLockProvider {
        final CountDownLatch abandoned = new CountDownLatch(1);
        volatile CountDownLatch releaseGate;

        Gated(JedisLockProvider delegate) {
            super(delegate);
        }

        @Override
        public Release release(String name, String owner) {
            Release r = super.release(name, owner);
            CountDownLatch gate = releaseGate;
            if (gate != null) {
                releaseGate = null;
                try {
                    gate.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return r;
        }

        @Override
        public void abandon(String name, String owner, long waitId) {
            super.abandon(name, owner, waitId);
            abandoned.countDown();
        }
    }

    private Gated gated() {
        Gated p = new Gated(JedisLockProvider.create(redis.uri()));
        closeables.add(p);
        return p;
    }

    @Test
    @DisplayName("waiters of one process take the lock from each other without a call of their own")
    void localHandOffsNeedNoClaim() throws Exception {
        CountingLockProvider provider = new CountingLockProvider(JedisLockProvider.create(redis.uri()));
        DistributedLockFactory f = DistributedLockFactory.create(provider);
        closeables.add(f);
        String name = name();
        LockHandle holder = f.acquire(name, LockOptions.noWait());
        int n = 16;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                DistributedLock lock = f.getLock(name);
                lock.lock();
                if (inside.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                tokens.add(lock.fencingToken());
                inside.decrementAndGet();
                lock.unlock();
            });
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        // Every waiter queued and parked in its wait: one attempt each, and one more by each whose
        // first attempt went out before the client's subscription was in place (at least the one that
        // made it), and the holder's.
        awaitQueued(name, n);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> threads.stream().allMatch(JedisLockProviderTest::parkedInAWait));
        long attempts = provider.acquisitions();
        assertThat(attempts).isBetween((long) n + 2, 2L * n + 1);

        holder.release();
        for (Thread t : threads) {
            t.join(10_000);
        }

        assertThat(tokens).hasSize(n);
        assertThat(overlaps).hasValue(0);
        assertThat(tokens)
                .as("tokens in the order the lock was held")
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(provider.acquisitions())
                .as("no waiter claimed: each took the token its predecessor's release passed on")
                .isEqualTo(attempts);
        assertThat(f.getLock(name).isLocked()).isFalse();
    }

    /** Whether {@code t} is parked in a lock wait (not on its way to one, e.g. subscribing). */
    private static boolean parkedInAWait(Thread t) {
        Thread.State state = t.getState();
        if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().equals("io.lockkit.WaitQueues$Waiter")
                    && e.getMethodName().equals("await")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Starts a thread that waits up to {@code seconds} for the lock; completes with tryLock's answer,
     * then unlocks once {@code unlock} opens.
     */
    private static java.util.concurrent.CompletableFuture<Boolean> waitFor(
            DistributedLockFactory f, String name, long seconds, CountDownLatch unlock, List<Thread> started) {
        java.util.concurrent.CompletableFuture<Boolean> waited = new java.util.concurrent.CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                DistributedLock lock = f.getLock(name);
                boolean got = lock.tryLock(seconds, TimeUnit.SECONDS);
                waited.complete(got);
                if (got && unlock.await(10, TimeUnit.SECONDS)) {
                    lock.unlock();
                }
            } catch (Throwable e) {
                waited.completeExceptionally(e);
            }
        });
        t.setDaemon(true);
        t.start();
        started.add(t);
        return waited;
    }

    private void awaitQueued(String name, long waiters) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Long.valueOf(waiters).equals(redis.command("ZCARD", "lockkit:{" + name + "}:q")));
    }

    @Test
    @DisplayName("a wait interrupted while the lock is being granted to it gives the lock back at once")
    void grantRacingAnInterruptIsGivenBack() throws Exception {
        Gated provider = gated();
        DistributedLockFactory f = DistributedLockFactory.create(provider);
        closeables.add(f);
        String name = name();
        LockHandle holder = f.acquire(name, LockOptions.noWait());
        List<Thread> waiter = new ArrayList<>();
        var waited = waitFor(f, name, 30, new CountDownLatch(0), waiter);
        awaitQueued(name, 1);

        // The release grants the lock to the waiter outright, but its answer (which would pass the
        // token on) is held back until the interrupted waiter has abandoned its wait.
        provider.releaseGate = provider.abandoned;
        Thread releaser = new Thread(holder::release);
        releaser.setDaemon(true);
        releaser.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> holdCount(provider, name) == 1);
        waiter.get(0).interrupt();

        assertThat(catchThrowable(() -> waited.get(10, TimeUnit.SECONDS)))
                .hasCauseInstanceOf(InterruptedException.class);
        releaser.join(10_000);
        assertThat(f.getLock(name).isLocked())
                .as("the grant went back with the abandon, not after its 30 s lease")
                .isFalse();
        try (DistributedLockFactory other = factory()) {
            assertThat(other.tryAcquire(name)).isPresent();
        }
    }

    @Test
    @DisplayName(
            "a wait whose deadline passes while the lock is being granted to it takes the grant with its last look, once")
    void grantRacingTheDeadlineIsTakenOnce() throws Exception {
        Gated provider = gated();
        DistributedLockFactory f = DistributedLockFactory.create(provider);
        closeables.add(f);
        String name = name();
        LockHandle holder = f.acquire(name, LockOptions.noWait());
        List<Thread> waiter = new ArrayList<>();
        CountDownLatch unlock = new CountDownLatch(1);
        var waited = waitFor(f, name, 1, unlock, waiter);
        awaitQueued(name, 1);

        CountDownLatch waiterDone = new CountDownLatch(1);
        provider.releaseGate = waiterDone;
        Thread releaser = new Thread(holder::release);
        releaser.setDaemon(true);
        releaser.start();

        assertThat(waited.get(10, TimeUnit.SECONDS)).as("taken at the deadline").isTrue();
        assertThat(holdCount(provider, name))
                .as("the last look met the grant and did not count it twice")
                .isEqualTo(1);
        unlock.countDown();
        waiter.get(0).join(10_000);
        waiterDone.countDown();
        releaser.join(10_000);
        assertThat(f.getLock(name).isLocked()).as("one unlock freed it").isFalse();
    }

    @Test
    @DisplayName("with local hand-overs off, waiters get the lock in arrival order")
    void strictArrivalOrderWhenLocalHandOffsAreOff() {
        JedisLockProvider p =
                JedisLockProvider.builder().uri(redis.uri()).localHandOffs(0).build();
        closeables.add(p);
        String name = name();
        p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
        p.tryAcquire(request(name, "c2:older", Duration.ofSeconds(10)));
        p.tryAcquire(request(name, "c1:a", Duration.ofSeconds(10)));
        assertThat(p.release(name, "c1:holder").grantee()).isEqualTo("c2:older");
    }

    @Test
    @DisplayName("a waiter that gave up passes its hand-over on")
    void abandonedHandOverPassesOn() {
        JedisLockProvider p = provider();
        String name = name();
        p.tryAcquire(request(name, "holder", Duration.ZERO));
        p.tryAcquire(request(name, "quitter", Duration.ofSeconds(10)));
        p.tryAcquire(request(name, "patient", Duration.ofSeconds(10)));
        assertThat(p.release(name, "holder").grantee()).isEqualTo("quitter");
        p.abandon(name, "quitter", 0);
        assertThat(p.tryAcquire(request(name, "patient", Duration.ofSeconds(10)))
                        .isAcquired())
                .isTrue();
    }

    @Test
    @DisplayName("a hand-over passed on by a waiter that gave up wakes the next waiter, also one of the same client")
    void abandonedHandOverWakesTheNextWaiterOfTheSameClient() throws Exception {
        JedisLockProvider p = provider();
        String name = name();
        List<String> grantees = new CopyOnWriteArrayList<>();
        try (var subscription = p.subscribe(name, recordingGrantees(grantees))) {
            p.tryAcquire(request(name, "c2:holder", Duration.ZERO));
            p.tryAcquire(request(name, "c1:quitter", Duration.ofSeconds(10)));
            p.tryAcquire(request(name, "c1:patient", Duration.ofSeconds(10)));
            assertThat(p.release(name, "c2:holder").grantee()).isEqualTo("c1:quitter");
            await().atMost(Duration.ofSeconds(5)).until(() -> grantees.contains("c1:quitter"));

            // c1's quitter never claims: the hand-over goes on to c1's patient waiter, and nobody
            // in c1 would learn of it but through the channel (abandon answers nothing to the core).
            p.abandon(name, "c1:quitter", 0);

            await().atMost(Duration.ofSeconds(5)).until(() -> grantees.contains("c1:patient"));
            assertThat(p.tryAcquire(request(name, "c1:patient", Duration.ofSeconds(10)))
                            .isAcquired())
                    .isTrue();
        }
    }

    @Test
    @DisplayName("a dead waiter's hand-over lapses after the claim timeout")
    void deadWaiterCostsOneClaimTimeout() {
        String name = name();
        assertDeadWaiterCostsOneClaimTimeout(
                name,
                request(name, "c2:dead", Duration.ofSeconds(10)),
                holdCount -> assertThat(holdCount).as("handed over, to claim").isZero());
    }

    /**
     * {@code deadWait}'s owner queues and never comes back; the release hands it the lock (its hold
     * count checked by {@code handedOver}): another client gets the lock within the claim timeout.
     */
    private void assertDeadWaiterCostsOneClaimTimeout(
            String name, LockRequest deadWait, java.util.function.IntConsumer handedOver) {
        JedisLockProvider p = JedisLockProvider.builder()
                .uri(redis.uri())
                .claimTimeout(Duration.ofMillis(300))
                .build();
        closeables.add(p);
        p.tryAcquire(request(name, "c1:holder", Duration.ZERO));
        p.tryAcquire(deadWait);
        assertThat(p.release(name, "c1:holder").grantee()).isEqualTo(deadWait.owner());
        handedOver.accept(holdCount(p, name, deadWait.owner()));
        Acquisition busy = p.tryAcquire(request(name, "c3:next", Duration.ZERO));
        assertThat(busy.isAcquired()).isFalse();
        assertThat(busy.retryAfter()).isLessThanOrEqualTo(Duration.ofMillis(300));
        await().atMost(Duration.ofSeconds(3))
                .until(() ->
                        p.tryAcquire(request(name, "c3:next", Duration.ZERO)).isAcquired());
    }

    @Test
    @DisplayName("a waiter whose queue entry went stale is skipped by the hand-over")
    void staleQueueEntriesAreSkipped() throws Exception {
        JedisLockProvider p = JedisLockProvider.builder()
                .uri(redis.uri())
                .claimTimeout(Duration.ofMillis(50))
                .build();
        closeables.add(p);
        String name = name();
        p.tryAcquire(new LockRequest(name, "holder", Duration.ofSeconds(30), Duration.ZERO));
        p.tryAcquire(new LockRequest(name, "gone", Duration.ofSeconds(30), Duration.ofMillis(1)));
        p.tryAcquire(new LockRequest(name, "alive", Duration.ofSeconds(30), Duration.ofSeconds(30)));
        Thread.sleep(200); // the first entry's deadline (wait + slack) passes on the server's clock
        assertThat(p.release(name, "holder").grantee()).isEqualTo("alive");
    }

    // ---- fencing ----

    @Test
    @DisplayName("tokens keep increasing after the lock key is deleted by hand and after FLUSHALL")
    void tokensIncreaseAcrossKeyDeletionAndDataLoss() {
        JedisLockProvider p = provider();
        String name = name();
        long first = p.tryAcquire(request(name, "a", Duration.ZERO)).fencingToken();
        redis.command("DEL", "lockkit:{" + name + "}");
        long second = p.tryAcquire(request(name, "b", Duration.ZERO)).fencingToken();
        assertThat(second).isGreaterThan(first);
        redis.command("FLUSHALL");
        long third = p.tryAcquire(request(name, "c", Duration.ZERO)).fencingToken();
        assertThat(third).isGreaterThan(second);
    }

    @Test
    @DisplayName("after a release only the lock's hash stays behind: no owner, the last token, a bounded lifetime")
    void releaseLeavesOnlyABoundedHashWithTheLastToken() {
        JedisLockProvider p = JedisLockProvider.builder()
                .uri(redis.uri())
                .fenceRetention(Duration.ofSeconds(5))
                .build();
        closeables.add(p);
        String name = name();
        long token = p.tryAcquire(request(name, "a", Duration.ZERO)).fencingToken();
        p.release(name, "a");
        String key = "lockkit:{" + name + "}";
        List<?> keys = (List<?>) redis.command("KEYS", "lockkit:{" + name + "}*");
        assertThat(keys).isEqualTo(List.of(key));
        assertThat(redis.command("HGETALL", key)).isEqualTo(List.of("~t", Long.toString(token)));
        long ttl = (Long) redis.command("PTTL", key);
        assertThat(ttl).isPositive().isLessThanOrEqualTo(5000);
        assertThat(p.inspect(name)).isEmpty();
        assertThat(p.tryAcquire(request(name, "b", Duration.ZERO)).fencingToken())
                .isGreaterThan(token);
    }

    // ---- naming ----

    @Test
    @DisplayName("key prefixes keep applications apart")
    void keyPrefixesKeepApplicationsApart() {
        JedisLockProvider a =
                JedisLockProvider.builder().uri(redis.uri()).keyPrefix("app-a").build();
        JedisLockProvider b =
                JedisLockProvider.builder().uri(redis.uri()).keyPrefix("app-b").build();
        closeables.add(a);
        closeables.add(b);
        String name = name();
        assertThat(a.tryAcquire(request(name, "x", Duration.ZERO)).isAcquired()).isTrue();
        assertThat(b.tryAcquire(request(name, "y", Duration.ZERO)).isAcquired()).isTrue();
        assertThat(b.forceRelease(name)).isTrue();
        assertThat(a.inspect(name)).isPresent();
    }

    // ---- wake-ups ----

    @Test
    @DisplayName("waiters resubscribe after the pub/sub connection is killed and acquire promptly")
    void waitersSurviveAKilledPubSubConnection() throws Exception {
        String name = name();
        DistributedLockFactory holderFactory = factory();
        LockHandle holder = holderFactory.acquire(name, LockOptions.noWait());
        DistributedLockFactory waiters = factory();
        AtomicInteger acquired = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(5);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Thread t = new Thread(() -> {
                DistributedLock lock = waiters.getLock(name);
                started.countDown();
                lock.lock();
                acquired.incrementAndGet();
                lock.unlock();
            });
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        started.await();
        await().atMost(Duration.ofSeconds(5)).until(() -> pubSubClients() >= 1);
        Thread.sleep(200);
        redis.command("CLIENT", "KILL", "TYPE", "pubsub");
        Thread.sleep(200);
        long released = System.nanoTime();
        holder.release();
        for (Thread t : threads) {
            t.join(10_000);
        }
        assertThat(acquired).hasValue(5);
        // far sooner than the 30 s lease a lost wake-up would cost
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).isLessThan(5_000);
    }

    private long pubSubClients() {
        String clients = (String) redis.command("CLIENT", "LIST", "TYPE", "pubsub");
        return clients.lines().filter(l -> !l.isBlank()).count();
    }

    @Test
    @DisplayName("one pub/sub connection serves every waiter of a provider, and channels are dropped after the waits")
    void onePubSubConnectionPerProvider() throws Exception {
        JedisLockProvider provider = JedisLockProvider.create(redis.uri());
        DistributedLockFactory waiters = DistributedLockFactory.builder(provider)
                .subscriptionLinger(Duration.ZERO)
                .build();
        closeables.add(waiters);
        DistributedLockFactory holders = factory();
        long before = pubSubClients();
        List<LockHandle> held = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String name = name();
            held.add(holders.acquire(name, LockOptions.noWait()));
            Thread t = new Thread(() -> {
                DistributedLock lock = waiters.getLock(name);
                lock.lock();
                lock.unlock();
            });
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> provider.subscribedChannels() == 10);
        assertThat(pubSubClients() - before).isEqualTo(1);
        held.forEach(LockHandle::release);
        for (Thread t : threads) {
            t.join(10_000);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> provider.subscribedChannels() == 0);
    }

    @Test
    @DisplayName(
            "1,000 virtual threads waiting on one lock all acquire in turn without extra platform threads or connections")
    void thousandVirtualThreadsAcquireInTurn() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21 or later");
        String name = name();
        JedisLockProvider provider = JedisLockProvider.builder()
                .uri(redis.uri())
                .clientName("vt-test")
                .maxConnections(4)
                .build();
        DistributedLockFactory f = DistributedLockFactory.create(provider);
        closeables.add(f);
        DistributedLock lock = f.getLock(name);
        // Warm up: the provider's pub/sub thread, the scheduler and a connection exist before counting.
        LockHandle holder = factory().acquire(name, LockOptions.noWait());
        List<Thread> warm = new ArrayList<>();
        for (int i = 0; i < 50; i++) { // a burst grows the command pool to its bound
            warm.add(newVirtualThread(() -> {
                lock.lock();
                lock.unlock();
            }));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> provider.subscribedChannels() == 1);
        Thread.sleep(300);
        int platformBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        long connectionsBefore = connections("vt-test");

        AtomicInteger done = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            threads.add(newVirtualThread(() -> {
                lock.lock();
                done.incrementAndGet();
                lock.unlock();
            }));
        }
        Thread.sleep(500);
        int platformWaiting = ManagementFactory.getThreadMXBean().getThreadCount();
        long connectionsWaiting = connections("vt-test");
        long start = System.nanoTime();
        holder.release();
        for (Thread t : threads) {
            t.join(60_000);
        }
        for (Thread t : warm) {
            t.join(10_000);
        }
        System.out.printf(
                "1,000 virtual waiters: platform threads %d -> %d, connections %d -> %d, drained in %d ms%n",
                platformBefore,
                platformWaiting,
                connectionsBefore,
                connectionsWaiting,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        assertThat(done).hasValue(1000);
        assertThat(connectionsWaiting)
                .as("connections while 1,000 threads wait")
                .isLessThanOrEqualTo(connectionsBefore)
                .isLessThanOrEqualTo(4 + 1);
        // The JDK's carrier threads for virtual threads are the only platform threads allowed to appear.
        assertThat(platformWaiting - platformBefore)
                .isLessThanOrEqualTo(Runtime.getRuntime().availableProcessors() + 2);
    }

    @Test
    @DisplayName("32 threads locking distinct names share two command connections on a single node")
    void lockersShareTwoCommandConnections() throws Exception {
        String clientName = "share-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        JedisLockProvider provider = JedisLockProvider.builder()
                .uri(redis.uri())
                .clientName(clientName)
                .build();
        DistributedLockFactory f = DistributedLockFactory.create(provider);
        closeables.add(f);
        String prefix = name();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        AtomicInteger pairs = new AtomicInteger();
        for (int t = 0; t < 32; t++) {
            DistributedLock lock = f.getLock(prefix + ":" + t);
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 300; i++) {
                    lock.lock();
                    pairs.incrementAndGet();
                    lock.unlock();
                }
            });
            thread.start();
            threads.add(thread);
        }
        start.countDown();
        for (Thread t : threads) {
            t.join(60_000);
        }
        assertThat(pairs).hasValue(32 * 300);
        // The pool keeps what it opened (idle connections stay): the count is the most ever in use.
        // The pub/sub connection (TYPE pubsub) comes on top.
        assertThat(connections(clientName, "TYPE", "normal"))
                .as("command connections for 32 threads")
                .isBetween(1L, 2L);
    }

    private static Thread newVirtualThread(Runnable body) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        // Through the public interface Thread.Builder (JDK 21+); the implementation class is not accessible.
        return (Thread) Class.forName("java.lang.Thread$Builder")
                .getMethod("start", Runnable.class)
                .invoke(builder, body);
    }

    /** Connections named {@code clientName} in {@code CLIENT LIST}, narrowed by {@code filter} (e.g. TYPE normal). */
    private long connections(String clientName, String... filter) {
        String[] command = new String[2 + filter.length];
        command[0] = "CLIENT";
        command[1] = "LIST";
        System.arraycopy(filter, 0, command, 2, filter.length);
        String clients = (String) redis.command(command);
        return clients.lines()
                .filter(l -> l.contains(" name=" + clientName + " "))
                .count();
    }

    @Test
    @DisplayName("commands per acquisition stay bounded with 16 threads on each of 4 providers")
    void commandsPerAcquisitionStayBoundedUnderContention() throws Exception {
        String name = name();
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            locks.add(countedFactory().getLock(name));
        }
        contend(locks, 2); // warm up: pools grow to their working size, subscriptions are made
        CommandMonitor monitor = monitor();
        long start = System.nanoTime();
        int acquisitions = contend(locks, 10);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        double perAcquisition = (double) total(monitor.stop()) / acquisitions;
        System.out.printf(
                "64 contenders on 4 providers: %d acquisitions in %d ms, %.2f client commands per acquisition%n",
                acquisitions, millis, perAcquisition);
        assertThat(acquisitions).isEqualTo(640);
        assertThat(perAcquisition).isLessThanOrEqualTo(3.2);
    }

    /** 16 threads per lock object each lock and unlock {@code rounds} times; returns the acquisitions. */
    private static int contend(List<DistributedLock> locks, int rounds) throws InterruptedException {
        AtomicInteger acquisitions = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (DistributedLock l : locks) {
            for (int t = 0; t < 16; t++) {
                Thread thread = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < rounds; i++) {
                        l.lock();
                        acquisitions.incrementAndGet();
                        l.unlock();
                    }
                });
                thread.start();
                threads.add(thread);
            }
        }
        go.countDown();
        for (Thread t : threads) {
            t.join(120_000);
        }
        return acquisitions.get();
    }

    // ---- faults ----

    @Test
    @DisplayName("a Redis restart during a hold is reported to the holder, and tokens stay monotonic")
    void restartDuringAHoldIsReported() throws Exception {
        String name = name();
        DistributedLockFactory f = DistributedLockFactory.builder(JedisLockProvider.create(redis.uri()))
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofMillis(900))
                        .build())
                .build();
        closeables.add(f);
        LockHandle h = f.acquire(name, LockOptions.noWait());
        long before = h.fencingToken();
        redis.restart();
        assertThat(h.lost().toCompletableFuture().get(5, TimeUnit.SECONDS).lockName())
                .isEqualTo(name);
        LockHandle after = f.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(5)));
        assertThat(after.fencingToken()).isGreaterThan(before);
    }

    @Test
    @DisplayName("an unreachable Redis gives BackendUnavailableException within the timeout")
    void unreachableRedisFailsWithinTheTimeout() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        JedisLockProvider p = JedisLockProvider.builder()
                .uri("redis://127.0.0.1:" + port)
                .timeout(Duration.ofMillis(500))
                .connectTimeout(Duration.ofMillis(500))
                .build();
        closeables.add(p);
        long start = System.nanoTime();
        assertThatThrownBy(() -> p.tryAcquire(request("x", "o", Duration.ZERO)))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("'x'");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3_000);
    }

    @Test
    @DisplayName("replica acknowledgement without enough replicas undoes the acquisition")
    void missingReplicaAcknowledgementUndoesTheAcquisition() {
        JedisLockProvider p = JedisLockProvider.builder()
                .uri(redis.uri())
                .replicaAcknowledgement(1, Duration.ofMillis(50))
                .build();
        closeables.add(p);
        String name = name();
        assertThatThrownBy(() -> p.tryAcquire(request(name, "a", Duration.ZERO)))
                .isInstanceOf(ReplicaAcknowledgementException.class)
                .hasMessageContaining("0 of 1 replicas");
        assertThat(p.inspect(name)).isEmpty();
    }

    // ---- inspection and configuration ----

    @Test
    @DisplayName("inspection shows owners, hold counts and the remaining lease")
    void inspectionShowsOwnersAndLease() {
        JedisLockProvider p = provider();
        String name = name();
        p.tryAcquire(new LockRequest(name, "owner-1", Duration.ofSeconds(10), Duration.ZERO));
        p.tryAcquire(new LockRequest(name, "owner-1", Duration.ofSeconds(10), Duration.ZERO));
        Optional<LockState> state = p.inspect(name);
        assertThat(state).isPresent();
        assertThat(state.get().holdCounts()).isEqualTo(Map.of("owner-1", 2));
        assertThat(state.get().remainingLease()).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));
        assertThat(p.forceRelease(name)).isTrue();
        assertThat(p.inspect(name)).isEmpty();
        assertThat(p.forceRelease(name)).isFalse();
    }

    @Test
    @DisplayName("the builder rejects bad settings naming the argument")
    void builderRejectsBadSettings() {
        assertThatThrownBy(() -> JedisLockProvider.builder().uri("http://localhost"))
                .hasMessageContaining("uri");
        assertThatThrownBy(() -> JedisLockProvider.builder().uri(" ")).hasMessageContaining("uri");
        assertThatThrownBy(() -> JedisLockProvider.builder().uri(null)).hasMessageContaining("uri");
        assertThatThrownBy(() -> JedisLockProvider.builder().keyPrefix("a{b}")).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> JedisLockProvider.builder().keyPrefix("")).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> JedisLockProvider.builder().keyPrefix("has space"))
                .hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> JedisLockProvider.builder().timeout(Duration.ZERO))
                .hasMessageContaining("timeout");
        assertThatThrownBy(() -> JedisLockProvider.builder().claimTimeout(Duration.ofMillis(-1)))
                .hasMessageContaining("claimTimeout");
        assertThatThrownBy(() -> JedisLockProvider.builder().replicaAcknowledgement(-1, Duration.ofSeconds(1)))
                .hasMessageContaining("replicas");
        assertThatThrownBy(() -> JedisLockProvider.builder().maxConnections(0)).hasMessageContaining("maxConnections");
        assertThatThrownBy(() -> JedisLockProvider.builder().localHandOffs(-1)).hasMessageContaining("localHandOffs");
        assertThatThrownBy(() -> JedisLockProvider.builder().client(null)).hasMessageContaining("client");
        assertThatThrownBy(() -> JedisLockProvider.builder().clientName("a b")).hasMessageContaining("clientName");
    }

    @Test
    @DisplayName("a password in the URI is not shown by toString")
    void passwordIsRedacted() {
        JedisLockProvider p = JedisLockProvider.builder()
                .uri("redis://user:secret@127.0.0.1:1")
                .build();
        closeables.add(p);
        assertThat(p.toString()).doesNotContain("secret");
    }

    @Test
    @DisplayName(
            "an interrupt does not fail a wake-up subscription: it is confirmed, and the interrupt status stays set")
    void interruptedSubscriptionIsConfirmedAndKeepsTheStatus() {
        JedisLockProvider p = provider();
        List<LockProvider.Subscription> all = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            // A name new to the client (the first one also starts the pub/sub thread): its channel
            // needs a confirmation from Redis, which the subscribing thread waits for.
            String name = name();
            Thread.currentThread().interrupt();
            try {
                all.add(p.subscribe(name, recordingGrantees(new CopyOnWriteArrayList<>())));
            } catch (RuntimeException e) {
                failures.add(i + ": " + e);
            }
            assertThat(Thread.interrupted())
                    .as("interrupt status after subscription %d", i)
                    .isTrue();
        }
        assertThat(failures)
                .as("subscriptions that failed because of the interrupt")
                .isEmpty();
        assertThat(p.subscribedChannels()).isEqualTo(20);
        all.forEach(LockProvider.Subscription::close);
    }

    @Test
    @DisplayName(
            "lock() called with the interrupt status set on a busy lock waits, takes it once free, and keeps the status")
    void lockWithTheInterruptSetWaitsOnRedis() throws Exception {
        DistributedLockFactory holder = factory();
        DistributedLockFactory waiting = factory();
        List<String> failures = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 20; i++) {
            String name = name();
            LockHandle held = holder.acquire(name, LockOptions.noWait());
            Thread.currentThread().interrupt();
            java.util.concurrent.CompletableFuture<Void> release = new java.util.concurrent.CompletableFuture<>();
            Thread releaser = new Thread(() -> {
                release.join();
                held.release();
            });
            releaser.setDaemon(true);
            releaser.start();
            DistributedLock lock = waiting.getLock(name);
            try {
                // The release comes from another thread once this one is waiting (parked or subscribing).
                Thread self = Thread.currentThread();
                Thread watcher = new Thread(() -> {
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> self.getState() == Thread.State.WAITING
                                    || self.getState() == Thread.State.TIMED_WAITING);
                    release.complete(null);
                });
                watcher.setDaemon(true);
                watcher.start();
                lock.lock();
                assertThat(Thread.currentThread().isInterrupted())
                        .as("interrupt status kept by lock() %d", i)
                        .isTrue();
                lock.unlock();
            } catch (RuntimeException e) {
                failures.add(i + ": " + e);
                release.complete(null);
            } finally {
                Thread.interrupted();
            }
            releaser.join(10_000);
        }
        assertThat(failures)
                .as("lock() calls that failed because of the interrupt")
                .isEmpty();
    }
}
