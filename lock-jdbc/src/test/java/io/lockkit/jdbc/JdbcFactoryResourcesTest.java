package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.MultiLockHandle;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What one factory over PostgreSQL costs in threads and connections, and that neither grows with the
 * locks it holds or the names it waits on: the factory's two scheduler threads and at most two async
 * threads, the provider's one LISTEN thread and connection once a wait subscribes (one channel per
 * table, whatever the names), and every call on the provider's small pool (at most
 * {@link JdbcLockProvider#DEFAULT_MAX_CONNECTIONS}). Threads are told apart by name (the factory's
 * client id, the provider's thread factory), connections by {@code application_name} in
 * {@code pg_stat_activity}, so tests running beside this one do not count.
 */
@Tag("first-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("Resources of one factory over PostgreSQL")
class JdbcFactoryResourcesTest {

    @RegisterExtension
    static final PostgresContract PG = new PostgresContract();

    /** Names one client waits on at once. */
    static final int WAITED_NAMES = 2_000;

    @Test
    @DisplayName("one factory keeps its threads and connections from idle to 1,000 held locks, and waits on 2,000 names"
            + " with one LISTEN connection")
    void threadsAndConnectionsDoNotGrowWithHoldsOrWaitedNames() throws Exception {
        String run = "resources_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        Factory waiter = Factory.open(run + "_waiter");
        Factory holder = Factory.open(run + "_holder");
        try (DistributedLockFactory f = waiter.locks;
                DistributedLockFactory other = holder.locks) {
            Figures idle = waiter.figures();
            List<LockHandle> held = new ArrayList<>();
            Map<Integer, Figures> holding = new HashMap<>();
            for (int count : new int[] {1, 100, 1000}) {
                while (held.size() < count) {
                    held.add(f.acquire(run + ":held:" + held.size()));
                }
                holding.put(count, waiter.figures());
            }
            held.forEach(LockHandle::close);
            List<String> names = IntStream.range(0, WAITED_NAMES)
                    .mapToObj(i -> run + ":waited:" + i)
                    .toList();
            Figures waiting;
            try (MultiLockHandle all = other.acquireAll(names)) {
                List<CompletableFuture<LockHandle>> waits = new ArrayList<>(WAITED_NAMES);
                for (String name : names) {
                    waits.add(f.acquireAsync(name, LockOptions.waitAtMost(Duration.ofMinutes(2)))
                            .toCompletableFuture());
                }
                waiting = await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100))
                        .until(waiter::figures, w -> w.queued() >= WAITED_NAMES);
                assertThat(waits).as("every wait still parked").noneMatch(CompletableFuture::isDone);
                f.close(); // before the holder releases: the waits end unanswered
                assertThat(waits).as("every wait ended by the close").allMatch(CompletableFuture::isDone);
                System.out.printf(
                        Locale.ROOT,
                        "factory resources (PostgreSQL): idle %s; holding 1 %s; 100 %s; 1000 %s; waiting on %,d names %s%n",
                        idle,
                        holding.get(1),
                        holding.get(100),
                        holding.get(1000),
                        WAITED_NAMES,
                        waiting);
            }
            assertThat(idle.schedulerThreads()).as("idle scheduler threads").isBetween(0, 2);
            assertThat(idle.asyncThreads() + idle.providerThreads())
                    .as("idle async and LISTEN threads")
                    .isZero();
            assertThat(idle.connections())
                    .as("idle connections")
                    .isBetween(0, JdbcLockProvider.DEFAULT_MAX_CONNECTIONS);
            for (Figures h : holding.values()) {
                assertThat(h.schedulerThreads())
                        .as("scheduler threads while holding")
                        .isBetween(1, 2);
                assertThat(h.asyncThreads()).as("async threads while holding").isZero();
                assertThat(h.providerThreads())
                        .as("LISTEN threads while holding (no wait yet)")
                        .isZero();
                assertThat(h.connections())
                        .as("connections while holding")
                        .isBetween(1, JdbcLockProvider.DEFAULT_MAX_CONNECTIONS);
            }
            assertThat(waiting.schedulerThreads())
                    .as("scheduler threads, 2,000 waits")
                    .isBetween(1, 2);
            assertThat(waiting.asyncThreads()).as("async threads, 2,000 waits").isBetween(1, 2);
            assertThat(waiting.providerThreads())
                    .as("LISTEN threads, 2,000 waited names")
                    .isEqualTo(1);
            assertThat(waiting.connections())
                    .as("connections, 2,000 waited names: the pool and the LISTEN connection")
                    .isBetween(2, JdbcLockProvider.DEFAULT_MAX_CONNECTIONS + 1);
            assertThat(waiter.providerThreadsMade.get())
                    .as("LISTEN threads ever made")
                    .isEqualTo(1);
            assertThat(holder.providerThreadsMade.get())
                    .as("the holding factory never waited: no LISTEN thread")
                    .isZero();
        }
    }

    /** Threads (live, by kind), connections and queued waits of one factory. */
    record Figures(int schedulerThreads, int asyncThreads, int providerThreads, int connections, int queued) {}

    /** A factory whose threads and connections can be told from every other's. */
    record Factory(DistributedLockFactory locks, String applicationName, AtomicInteger providerThreadsMade) {

        static Factory open(String applicationName) {
            AtomicInteger made = new AtomicInteger();
            ThreadFactory threads = r -> {
                Thread t = new Thread(r, applicationName + "-jdbc-" + made.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
            String url = PG.server().jdbcUrl();
            JdbcLockProvider provider = JdbcLockProvider.builder()
                    .jdbcUrl(url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName)
                    .threadFactory(threads)
                    .build();
            return new Factory(DistributedLockFactory.create(provider), applicationName, made);
        }

        Figures figures() {
            String id = locks.clientId();
            int scheduler = 0;
            int async = 0;
            int provider = 0;
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                String n = t.getName();
                if (n.equals("lockkit-scheduler-" + id)) {
                    scheduler++;
                } else if (n.equals("lockkit-async-" + id)) {
                    async++;
                } else if (n.startsWith(applicationName + "-jdbc-")) {
                    provider++;
                }
            }
            try (Connection c = DriverManager.getConnection(PG.server().jdbcUrl());
                    PreparedStatement connections =
                            c.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?");
                    PreparedStatement queued = c.prepareStatement(
                            "SELECT count(*) FROM " + JdbcLockProvider.DEFAULT_TABLE + "_waiters WHERE owner LIKE ?")) {
                connections.setString(1, applicationName);
                queued.setString(1, id + ":%");
                return new Figures(scheduler, async, provider, count(connections), count(queued));
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        private static int count(PreparedStatement s) throws SQLException {
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
