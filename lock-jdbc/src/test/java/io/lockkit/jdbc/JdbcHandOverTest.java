package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The PostgreSQL wait queue: a release hands the lock to the oldest waiter, who alone may claim it. */
class JdbcHandOverTest {

    private static final Duration CLAIM = Duration.ofMillis(800);
    private static final Duration LONG = Duration.ofSeconds(30);
    /** PostgreSQL with lockkit's table, for this class. */
    @RegisterExtension
    static final PostgresContract PG = new PostgresContract();

    private final List<JdbcLockProvider> providers = new ArrayList<>();

    @AfterEach
    void closeProviders() {
        providers.forEach(JdbcLockProvider::close);
    }

    private JdbcLockProvider provider() {
        JdbcLockProvider p = JdbcLockProvider.builder()
                .jdbcUrl(PG.server().jdbcUrl())
                .claimTimeout(CLAIM)
                .build();
        providers.add(p);
        return p;
    }

    private static Acquisition waitFor(JdbcLockProvider p, String name, String owner, long waitId) {
        return p.tryAcquire(new LockRequest(name, owner, LONG, LONG, waitId));
    }

    private static String name(String test) {
        return "handover:" + test + ":" + System.nanoTime();
    }

    @Test
    void aReleaseHandsTheLockToTheOldestWaiterAndOnlyItMayClaimIt() {
        String n = name("oldest");
        JdbcLockProvider holder = provider();
        JdbcLockProvider first = provider();
        JdbcLockProvider second = provider();
        long held = holder.tryAcquire(new LockRequest(n, "h:1", LONG, Duration.ZERO))
                .fencingToken();
        assertThat(waitFor(first, n, "a:1", 1).isAcquired()).isFalse();
        assertThat(waitFor(second, n, "b:1", 1).isAcquired()).isFalse();

        Release r = holder.release(n, "h:1");
        assertThat(r.outcome()).isEqualTo(Release.Outcome.RELEASED);
        assertThat(r.grantee()).isEqualTo("a:1");
        assertThat(waitFor(second, n, "b:1", 1).isAcquired())
                .as("a later waiter cannot take the hand-over")
                .isFalse();
        assertThat(holder.tryAcquire(new LockRequest(n, "h:2", LONG, Duration.ZERO))
                        .isAcquired())
                .as("nor a newcomer")
                .isFalse();
        Acquisition claimed = waitFor(first, n, "a:1", 1);
        assertThat(claimed.isAcquired()).isTrue();
        assertThat(claimed.fencingToken()).isGreaterThan(held);
        assertThat(first.inspect(n))
                .hasValueSatisfying(s -> assertThat(s.holdCounts()).containsEntry("a:1", 1));

        assertThat(first.release(n, "a:1").grantee())
                .as("then the next in line")
                .isEqualTo("b:1");
        assertThat(waitFor(second, n, "b:1", 1).isAcquired()).isTrue();
        assertThat(second.release(n, "b:1")).isEqualTo(Release.RELEASED);
        assertThat(second.inspect(n)).as("nobody left: the row is gone").isEmpty();
    }

    @Test
    void aWaiterThatGivesUpPassesAHandOverItHasNotClaimedToTheNext() {
        String n = name("abandon");
        JdbcLockProvider holder = provider();
        JdbcLockProvider quitter = provider();
        JdbcLockProvider next = provider();
        holder.tryAcquire(new LockRequest(n, "h:1", LONG, Duration.ZERO));
        waitFor(quitter, n, "q:1", 7);
        waitFor(next, n, "n:1", 1);
        assertThat(holder.release(n, "h:1").grantee()).isEqualTo("q:1");
        quitter.abandon(n, "q:1", 7);
        assertThat(next.inspect(n))
                .hasValueSatisfying(s -> assertThat(s.holdCounts()).containsOnlyKeys("n:1"));
        assertThat(waitFor(next, n, "n:1", 1).isAcquired()).isTrue();
    }

    @Test
    void aGranteeThatIsGoneCostsOnlyTheClaimTimeout() {
        String n = name("gone");
        JdbcLockProvider holder = provider();
        JdbcLockProvider dead = provider();
        JdbcLockProvider other = provider();
        holder.tryAcquire(new LockRequest(n, "h:1", LONG, Duration.ZERO));
        waitFor(dead, n, "d:1", 1);
        dead.close(); // its process is gone: it will never claim
        assertThat(holder.release(n, "h:1").grantee()).isEqualTo("d:1");
        Acquisition busy = other.tryAcquire(new LockRequest(n, "o:1", LONG, LONG, 1));
        assertThat(busy.isAcquired()).isFalse();
        assertThat(busy.retryAfter()).isLessThanOrEqualTo(CLAIM);
        long start = System.nanoTime();
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> other.tryAcquire(new LockRequest(n, "o:1", LONG, LONG, 1))
                        .isAcquired());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CLAIM.plusSeconds(2));
    }

    @Test
    void theNotificationOfAHandOverWakesOnlyTheGrantee() {
        String n = name("notify");
        JdbcLockProvider holder = provider();
        JdbcLockProvider waiters = provider();
        List<String> woken = new java.util.concurrent.CopyOnWriteArrayList<>();
        waiters.subscribe(n, new io.lockkit.spi.LockProvider.WakeUpListener() {
            @Override
            public void released(String grantee) {
                woken.add(String.valueOf(grantee));
            }

            @Override
            public void missedNotifications() {}
        });
        holder.tryAcquire(new LockRequest(n, "h:1", LONG, Duration.ZERO));
        waitFor(waiters, n, "w:1", 1);
        holder.release(n, "h:1");
        await().atMost(Duration.ofSeconds(5)).until(() -> woken.contains("w:1"));
        assertThat(woken).containsExactly("w:1");
    }

    @Test
    void aReleaseThatNobodyWaitsForSendsNoNotification() {
        String n = name("quiet");
        JdbcLockProvider holder = provider();
        JdbcLockProvider listening = provider();
        List<String> woken = new java.util.concurrent.CopyOnWriteArrayList<>();
        listening.subscribe(n, new io.lockkit.spi.LockProvider.WakeUpListener() {
            @Override
            public void released(String grantee) {
                woken.add(String.valueOf(grantee));
            }

            @Override
            public void missedNotifications() {}
        });
        holder.tryAcquire(new LockRequest(n, "h:1", LONG, Duration.ZERO));
        assertThat(holder.release(n, "h:1")).isEqualTo(Release.RELEASED);
        // Then a release somebody waits for: notifications arrive in commit order, so had the first
        // release notified, its notification would come before this one.
        holder.tryAcquire(new LockRequest(n, "h:2", LONG, Duration.ZERO));
        waitFor(listening, n, "w:1", 1);
        assertThat(holder.release(n, "h:2").grantee()).isEqualTo("w:1");
        await().atMost(Duration.ofSeconds(5)).until(() -> !woken.isEmpty());
        assertThat(woken).containsExactly("w:1");
    }

    @Test
    void aReleaseGrantsTheLockOutrightToAWaiterOfItsOwnClientWhoseWaitTakesItAsItIs() {
        String n = name("direct");
        JdbcLockProvider p = provider();
        long held = p.tryAcquire(new LockRequest(n, "c:1", LONG, Duration.ZERO)).fencingToken();
        assertThat(waitFor(p, n, "c:2", 5).isAcquired()).isFalse();

        Release r = p.release(n, "c:1");
        assertThat(r.granted()).as("granted outright: %s", r).isTrue();
        assertThat(r.grantee()).isEqualTo("c:2");
        assertThat(r.grantWaitId()).isEqualTo(5);
        assertThat(r.grantToken()).isGreaterThan(held);
        assertThat(p.inspect(n))
                .hasValueSatisfying(s -> assertThat(s.holdCounts()).containsExactly(java.util.Map.entry("c:2", 1)));
        assertThat(p.tryAcquire(new LockRequest(n, "c:3", LONG, Duration.ZERO)).isAcquired())
                .as("nobody else takes it")
                .isFalse();

        Acquisition taken = waitFor(p, n, "c:2", 5);
        assertThat(taken.isAcquired()).isTrue();
        assertThat(taken.fencingToken()).as("the granted token").isEqualTo(r.grantToken());
        assertThat(p.inspect(n))
                .as("the wait's attempt does not count a second hold")
                .hasValueSatisfying(s -> assertThat(s.holdCounts()).containsExactly(java.util.Map.entry("c:2", 1)));
        assertThat(p.release(n, "c:2")).isEqualTo(Release.RELEASED);
        assertThat(p.inspect(n)).isEmpty();
    }

    @Test
    void aGrantThatItsWaitNeverTookGoesBackWhenTheWaitIsAbandoned() {
        String n = name("direct-abandon");
        JdbcLockProvider p = provider();
        JdbcLockProvider other = provider();
        p.tryAcquire(new LockRequest(n, "c:1", LONG, Duration.ZERO));
        waitFor(p, n, "c:2", 5);
        waitFor(other, n, "o:1", 1);
        assertThat(p.release(n, "c:1").granted()).isTrue();
        p.abandon(n, "c:2", 4);
        assertThat(p.inspect(n))
                .as("the abandon of another wait leaves the grant")
                .hasValueSatisfying(s -> assertThat(s.holdCounts()).containsOnlyKeys("c:2"));
        p.abandon(n, "c:2", 5);
        assertThat(other.inspect(n))
                .as("passed on to the next waiter to claim")
                .hasValueSatisfying(s -> assertThat(s.holdCounts()).containsExactly(java.util.Map.entry("o:1", 0)));
        assertThat(waitFor(other, n, "o:1", 1).isAcquired()).isTrue();
    }

    @Test
    void waitersOfTheReleasingClientGoAheadOfAnOlderWaiterOfAnotherAtMostEightTimesInARow() {
        String n = name("streak");
        JdbcLockProvider local = provider();
        JdbcLockProvider remote = provider();
        local.tryAcquire(new LockRequest(n, "c:0", LONG, Duration.ZERO));
        assertThat(waitFor(remote, n, "r:1", 1).isAcquired()).isFalse();
        for (int i = 1; i <= 10; i++) {
            assertThat(waitFor(local, n, "c:" + i, 100 + i).isAcquired()).isFalse();
        }
        String holder = "c:0";
        for (int i = 1; i <= 8; i++) {
            Release r = local.release(n, holder);
            assertThat(r.grantee()).as("hand-over %d", i).isEqualTo("c:" + i);
            assertThat(r.granted()).isTrue();
            holder = "c:" + i;
            assertThat(waitFor(local, n, holder, 100 + i).isAcquired()).isTrue();
        }
        Release r = local.release(n, holder);
        assertThat(r.grantee())
                .as("the ninth goes to the older waiter of the other client")
                .isEqualTo("r:1");
        assertThat(r.granted()).as("which claims it").isFalse();
        assertThat(waitFor(remote, n, "r:1", 1).isAcquired()).isTrue();
        assertThat(remote.release(n, "r:1").grantee())
                .as("then the queue goes on in order")
                .isEqualTo("c:9");
    }
}
