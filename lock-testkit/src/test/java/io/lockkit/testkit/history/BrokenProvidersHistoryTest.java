package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockOptions;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The history check is only as good as the broken providers it rejects: clients of one in-JVM
 * backend, whose lock is deleted under a holder now and then (as a row or key deleted by hand).
 * An honest provider tells the holder (its renewal and release report the loss); a provider that
 * ignores a lost lock, or hands out a token twice, fails the check.
 */
class BrokenProvidersHistoryTest {

    private static final Duration LEASE = Duration.ofMillis(1500);

    @Test
    @DisplayName("an honest provider passes the history check with its locks deleted under holders")
    void honestProviderPasses() throws Exception {
        LockHistory.Result r = run(p -> p);
        System.out.println(r.summary());
        r.assertSafe();
        assertThat(r.report().overlapsWithLost())
                .as("deletions that freed a lock under its holder")
                .isPositive();
    }

    @Test
    @DisplayName("a provider whose renewals and releases ignore a lost lock fails: clean holds overlap")
    void providerIgnoringLostLocksFails() throws Exception {
        LockHistory.Result r = run(IgnoresLostLocks::new);
        assertThat(r.report().cleanOverlaps()).as("overlapping clean holds").isNotEmpty();
        assertThatThrownBy(r::assertSafe)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("overlapping clean holds");
    }

    @Test
    @DisplayName("a provider whose tokens repeat fails: duplicate tokens")
    void providerRepeatingTokensFails() throws Exception {
        LockHistory.Result r = run(RepeatsTokens::new);
        assertThatThrownBy(r::assertSafe).isInstanceOf(AssertionError.class).hasMessageContaining("duplicate tokens");
    }

    private static LockHistory.Result run(UnaryOperator<LockProvider> wrap) throws Exception {
        LocalLockProvider backend = new LocalLockProvider();
        String name = "history:broken";
        try {
            return LockHistory.builder()
                    .clients(
                            3,
                            listener -> DistributedLockFactory.builder(wrap.apply(backend.newClient()))
                                    .defaultOptions(LockOptions.builder()
                                            .watchdogLease(LEASE)
                                            .build())
                                    .onLockLost(listener)
                                    .build())
                    .threadsPerClient(2)
                    .lockName(name)
                    .fault("lock deleted", true, () -> backend.forceRelease(name))
                    .minAcquisitions(2_000)
                    .minRoundsOfFaults(4)
                    .faultSpacing(Duration.ofMillis(100))
                    .maxRun(Duration.ofSeconds(30))
                    .build()
                    .run();
        } finally {
            backend.close();
        }
    }

    /** Renewals report every hold renewed and releases report success, held or not (an UPDATE whose row count is ignored). */
    static final class IgnoresLostLocks extends ForwardingLockProvider {
        IgnoresLostLocks(LockProvider delegate) {
            super(delegate);
        }

        @Override
        public List<Renewal> renew(List<Renewal> renewals) {
            delegate().renew(renewals);
            return List.of();
        }

        @Override
        public Release release(String name, String owner) {
            Release r = delegate().release(name, owner);
            return r.outcome() == Release.Outcome.NOT_HELD ? Release.RELEASED : r;
        }
    }

    /** Tokens are halved: every other acquisition repeats its predecessor's token. */
    static final class RepeatsTokens extends ForwardingLockProvider {
        RepeatsTokens(LockProvider delegate) {
            super(delegate);
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            Acquisition a = delegate().tryAcquire(request);
            return a.isAcquired() ? Acquisition.acquired((a.fencingToken() + 1) / 2) : a;
        }

        @Override
        public Release release(String name, String owner) {
            Release r = delegate().release(name, owner);
            return r.granted() && r.grantToken() > 0
                    ? Release.grantedTo(r.grantee(), (r.grantToken() + 1) / 2, r.grantWaitId())
                    : r;
        }
    }
}
