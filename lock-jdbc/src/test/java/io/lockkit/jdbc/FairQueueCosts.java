package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import java.time.Duration;

/**
 * Counts the statements of fair claims on one provider, for the dialects' tests: the exclusive lock
 * and unlock costs what it did before the fair queue, also while another name has a queue of fair
 * waiters; a fair lock and unlock costs at most one look at the queue more (none where one
 * statement looks and acquires); a fair attempt behind an earlier waiter costs the look and its
 * place; and inspect counts the fair waiters in its one statement.
 */
final class FairQueueCosts {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Claim FAIR = Claim.EXCLUSIVE.fairly();

    /**
     * Expected statements: an exclusive lock+unlock, a fair one, a fair attempt queued behind an
     * earlier waiter; and the waiters inspect reports for a queue of two (-1: the dialect counts none).
     */
    record Costs(int exclusivePair, int fairPair, int queuedBehind, int waitersInspected) {}

    private FairQueueCosts() {}

    static void check(JdbcLockProvider p, String name, Costs expected) {
        assertThat(cost(p, () -> pair(p, name + ":x", Claim.EXCLUSIVE)))
                .as("an exclusive lock and unlock")
                .isEqualTo(expected.exclusivePair());
        assertThat(cost(p, () -> pair(p, name + ":f", FAIR)))
                .as("a fair lock and unlock of a name nobody waits for")
                .isEqualTo(expected.fairPair());

        assertThat(attempt(p, name, "h:t1")).isTrue();
        assertThat(attempt(p, name, "a:t1")).as("a waits first").isFalse();
        assertThat(cost(p, () -> assertThat(attempt(p, name, "b:t1")).isFalse()))
                .as("a fair attempt queued behind an earlier waiter")
                .isEqualTo(expected.queuedBehind());
        assertThat(cost(p, () -> pair(p, name + ":x", Claim.EXCLUSIVE)))
                .as("an exclusive lock and unlock while another name has fair waiters")
                .isEqualTo(expected.exclusivePair());
        long before = p.statements();
        assertThat(p.inspect(name).orElseThrow().waiters())
                .as("the fair waiters inspect counts")
                .isEqualTo(expected.waitersInspected());
        assertThat(p.statements() - before).as("statements of one inspect").isEqualTo(1);

        p.abandon(name, "a:t1", 0);
        p.abandon(name, "b:t1", 0);
        assertThat(p.release(name, "h:t1")).isEqualTo(Release.RELEASED);
        assertThat(attempt(p, name, "c:t1"))
                .as("a newcomer once the waiters left")
                .isTrue();
        assertThat(p.release(name, "c:t1")).isEqualTo(Release.RELEASED);
    }

    private static boolean attempt(JdbcLockProvider p, String name, String owner) {
        return p.tryAcquire(new LockRequest(name, owner, LEASE, WAIT, 0, FAIR)).isAcquired();
    }

    private static void pair(JdbcLockProvider p, String name, Claim claim) {
        assertThat(p.tryAcquire(new LockRequest(name, "c:a", LEASE, Duration.ZERO, 0, claim))
                        .isAcquired())
                .isTrue();
        assertThat(p.release(name, "c:a")).isEqualTo(Release.RELEASED);
    }

    private static long cost(JdbcLockProvider p, Runnable work) {
        long before = p.statements();
        work.run();
        return p.statements() - before;
    }
}
