package io.lockkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Counts the statements of each kind of claim on one provider, for the dialects' tests: the exclusive
 * lock and unlock (which shared holds must not make dearer, also while other names are held shared),
 * and a semaphore's first, second and reentrant permits, their renewal and their releases.
 */
final class SharedHoldCosts {

    private static final Duration LEASE = Duration.ofSeconds(30);

    /** Expected statements: exclusive lock+unlock; first permit, second, reentrant; release of one of two, of the last. */
    record Costs(int exclusivePair, int first, int second, int reentrant, int releaseOne, int releaseLast) {}

    private SharedHoldCosts() {}

    static void check(JdbcLockProvider p, String name, Costs expected) {
        assertThat(cost(p, () -> exclusivePair(p, name + ":x")))
                .as("an exclusive lock and unlock")
                .isEqualTo(expected.exclusivePair());
        assertThat(cost(p, () -> admit(p, name, "c:p1"))).as("the first permit").isEqualTo(expected.first());
        assertThat(cost(p, () -> admit(p, name, "c:p2"))).as("a second permit").isEqualTo(expected.second());
        assertThat(cost(p, () -> admit(p, name, "c:p2")))
                .as("a reentrant permit")
                .isEqualTo(expected.reentrant());
        assertThat(cost(p, () -> exclusivePair(p, name + ":x")))
                .as("an exclusive lock and unlock while another name is held shared")
                .isEqualTo(expected.exclusivePair());
        assertThat(cost(
                        p,
                        () -> assertThat(p.renew(
                                        List.of(new Renewal(name, "c:p1", LEASE), new Renewal(name, "c:p2", LEASE))))
                                .isEmpty()))
                .as("renewing two permits: one batch for the row, one for the holders")
                .isEqualTo(2);
        assertThat(p.release(name, "c:p2")).isEqualTo(Release.STILL_HELD);
        assertThat(cost(p, () -> assertThat(p.release(name, "c:p2")).isEqualTo(Release.RELEASED)))
                .as("the release of one permit of two")
                .isEqualTo(expected.releaseOne());
        assertThat(cost(p, () -> assertThat(p.release(name, "c:p1")).isEqualTo(Release.RELEASED)))
                .as("the release of the last permit")
                .isEqualTo(expected.releaseLast());
        assertThat(p.inspect(name)).isEmpty();
    }

    private static void exclusivePair(JdbcLockProvider p, String name) {
        assertThat(p.tryAcquire(new LockRequest(name, "c:a", LEASE, Duration.ZERO))
                        .isAcquired())
                .isTrue();
        assertThat(p.release(name, "c:a")).isEqualTo(Release.RELEASED);
    }

    private static void admit(JdbcLockProvider p, String name, String owner) {
        assertThat(p.tryAcquire(new LockRequest(name, owner, LEASE, Duration.ZERO, 0, Claim.shared(1, 3)))
                        .isAcquired())
                .isTrue();
    }

    private static long cost(JdbcLockProvider p, Runnable work) {
        LongSupplier statements = p::statements;
        long before = statements.getAsLong();
        work.run();
        return statements.getAsLong() - before;
    }
}
