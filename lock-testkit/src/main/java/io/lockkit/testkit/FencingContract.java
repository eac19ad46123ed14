package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import io.lockkit.LockOptions;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Fencing tokens" ({@link LockContractTest.Fencing}): tokens strictly increase from holder to
 * holder, across lapses and force releases; reentry keeps the token. Also past 2^31 and 2^53, where
 * a token kept in an int or a double breaks, when the kit can start a backend's tokens there
 * ({@link LockContractTest#startTokensAt}).
 */
abstract class FencingContract extends ContractGroup {

    FencingContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("tokens strictly increase from holder to holder across clients")
    void tokensIncreaseAcrossHolders() throws Exception {
        assume(Capability.FENCING_TOKENS);
        String name = name();
        long last = Long.MIN_VALUE;
        for (int i = 0; i < 10; i++) {
            try (LockHandle h = client().acquire(name, waitFor(Duration.ofSeconds(2)))) {
                assertThat(h.fencingToken()).isGreaterThan(last);
                last = h.fencingToken();
            }
        }
    }

    @Test
    @DisplayName("a token after a lapsed lease is greater than the lapsed one")
    void tokensIncreaseAcrossExpiry() throws Exception {
        assume(Capability.FENCING_TOKENS);
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        LockHandle first = client().acquire(name, leaseOf(scaled(Duration.ofMillis(300))));
        LockHandle second = client().acquire(name, waitFor(Duration.ofSeconds(5)));
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    }

    @Test
    @DisplayName("a token after a force release is greater than the released one")
    void tokensIncreaseAcrossForceRelease() throws Exception {
        assume(Capability.FENCING_TOKENS);
        assume(Capability.FORCE_RELEASE);
        String name = name();
        LockHandle first = client().acquire(name, LockOptions.noWait());
        assertThat(client().getLock(name).forceUnlock()).isTrue();
        LockHandle second = client().acquire(name, LockOptions.noWait());
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    }

    @Test
    @DisplayName("a reentrant acquisition keeps the token, for threads and handles")
    void reentrantAcquisitionKeepsTheToken() throws Exception {
        assume(Capability.FENCING_TOKENS);
        DistributedLock lock = client().getLock(name());
        lock.lock();
        long token = lock.fencingToken();
        assertThat(lock.tryLock(scaled(Duration.ofSeconds(2)), null)).isTrue();
        assertThat(lock.fencingToken()).isEqualTo(token);
        lock.unlock();
        assertThat(lock.fencingToken()).isEqualTo(token);
        lock.unlock();

        LockHandle h = client().acquire(name(), LockOptions.noWait());
        long handleToken = h.fencingToken();
        h.acquireAgain();
        assertThat(h.fencingToken()).isEqualTo(handleToken);
        h.close();
    }

    @Test
    @DisplayName("a thread's next hold after a release that failed carries a new token, and its unlock frees the lock")
    void holdAfterAFailedReleaseHasANewToken() throws Exception {
        assume(Capability.FENCING_TOKENS);
        AtomicBoolean failRelease = new AtomicBoolean();
        DistributedLockFactory f = clientOver(new ForwardingLockProvider(provider()) {
            @Override
            public Release release(String lockName, String owner) {
                if (failRelease.compareAndSet(true, false)) {
                    // The release never reached the backend (a broken connection): the backend still holds it.
                    throw new BackendUnavailableException(lockName, "kit: the release was not sent", null);
                }
                return super.release(lockName, owner);
            }
        });
        String name = name();
        DistributedLock lock = f.getLock(name);
        lock.lock();
        long first = lock.fencingToken();
        failRelease.set(true);
        assertThatThrownBy(lock::unlock).isInstanceOf(BackendUnavailableException.class);
        assertThat(lock.isHeldByCurrentThread()).isFalse();

        // The same thread (the same owner on the backend) locks again while its earlier hold is still
        // there: a new hold, which a fenced resource must tell from the one that ended.
        assertThat(lock.tryLock(scaled(Duration.ofSeconds(5)), null)).isTrue();
        assertThat(lock.fencingToken())
                .as("the token of the hold after the failed release")
                .isGreaterThan(first);
        lock.unlock();
        assertThat(client().tryAcquire(name))
                .as("the lock after the unlock of that hold")
                .isPresent();
    }

    @Test
    @DisplayName("a thread's next hold after an acquisition whose answer was lost frees the lock at its unlock")
    void holdAfterALostAcquisitionAnswerIsReleasedFully() throws Exception {
        AtomicBoolean loseAnswer = new AtomicBoolean();
        DistributedLockFactory f = clientOver(new ForwardingLockProvider(provider()) {
            @Override
            public Acquisition tryAcquire(LockRequest request) {
                Acquisition a = super.tryAcquire(request);
                if (loseAnswer.compareAndSet(true, false)) {
                    // The backend acquired, but its answer never came back.
                    throw new BackendUnavailableException(request.name(), "kit: the answer was lost", null);
                }
                return a;
            }
        });
        String name = name();
        DistributedLock lock = f.getLock(name);
        loseAnswer.set(true);
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, null)).isInstanceOf(BackendUnavailableException.class);
        assertThat(lock.tryLock(scaled(Duration.ofSeconds(5)), null)).isTrue();
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(lock.fencingToken()).isPositive();
        }
        lock.unlock();
        assertThat(client().tryAcquire(name))
                .as("the lock after the unlock of that hold")
                .isPresent();
    }

    // ---- tokens past 2^31 and 2^53, from where the kit's startTokensAt puts the backend's counter ----

    /** Where a token kept in a signed 32-bit int wraps to a negative one. */
    private static final long TWO_TO_THE_31 = 1L << 31;

    /**
     * Past it, a token passed through a double (a Lua number, a JSON or JavaScript one) loses odd
     * values: 2^53 + 1 reads as 2^53.
     */
    private static final long TWO_TO_THE_53 = 1L << 53;

    /** Makes the next token of {@code name} at least {@code next}, skipping the test (visibly) when the kit cannot. */
    private void startTokensAt(String name, long next) {
        assumeTrue(
                kit.startTokensAt(name, next),
                () -> "the kit cannot start tokens at " + next + " (LockContractTest.startTokensAt says so)");
    }

    @Test
    @DisplayName("tokens strictly increase from holder to holder across 2^31 and across 2^53, every value exact")
    void tokensIncreaseAcrossTheIntAndDoubleBoundaries() throws Exception {
        assume(Capability.FENCING_TOKENS);
        for (long boundary : new long[] {TWO_TO_THE_31, TWO_TO_THE_53}) {
            String name = name();
            long start = boundary - 1;
            startTokensAt(name, start);
            List<DistributedLockFactory> clients = List.of(client(), client());
            long last = 0;
            for (int i = 0; i < 4; i++) {
                try (LockHandle h = clients.get(i % 2).acquire(name, waitFor(Duration.ofSeconds(2)))) {
                    assertThat(h.fencingToken())
                            .as(
                                    "holder %d's token, tokens started at 2^%d - 1",
                                    i + 1, Long.numberOfTrailingZeros(boundary))
                            .isGreaterThanOrEqualTo(start)
                            .isGreaterThan(last);
                    last = h.fencingToken();
                }
            }
        }
    }

    @Test
    @DisplayName("a token past 2^53 is exact: reentry keeps it, and inspect and a listing show it as it is")
    void tokenPastTwoToThe53IsExactEverywhere() throws Exception {
        assume(Capability.FENCING_TOKENS);
        String name = name();
        long next = TWO_TO_THE_53 + 1; // the first integer a double cannot hold
        startTokensAt(name, next);
        DistributedLock lock = client().getLock(name);
        lock.lock();
        long token = lock.fencingToken();
        assertThat(token).as("the first token once tokens start at 2^53 + 1").isGreaterThanOrEqualTo(next);
        lock.lock();
        assertThat(lock.fencingToken()).as("the token after reentry").isEqualTo(token);
        DistributedLockFactory observer = client();
        if (has(Capability.INSPECTION)) {
            assertThat(observer.operations().inspect(name).map(LockInfo::fencingToken))
                    .as("the token inspect shows")
                    .contains(token);
        }
        if (has(Capability.LISTING)) {
            try (Stream<LockInfo> held = observer.operations().locks(name)) {
                assertThat(held.filter(i -> i.name().equals(name)).map(LockInfo::fencingToken))
                        .as("the token a listing shows")
                        .containsExactly(token);
            }
        }
        lock.unlock();
        lock.unlock();

        String handled = name();
        startTokensAt(handled, next);
        LockHandle h = client().acquire(handled, LockOptions.noWait());
        long handleToken = h.fencingToken();
        assertThat(handleToken)
                .as("a handle's token once tokens start at 2^53 + 1")
                .isGreaterThanOrEqualTo(next);
        h.acquireAgain();
        assertThat(h.fencingToken()).as("the handle's token after reentry").isEqualTo(handleToken);
        h.close();
    }

    @Test
    @DisplayName("tokens strictly increase across force releases, past 2^31 and past 2^53")
    void tokensIncreaseAcrossForceReleasesPastTheBoundaries() throws Exception {
        assume(Capability.FENCING_TOKENS);
        assume(Capability.FORCE_RELEASE);
        for (long boundary : new long[] {TWO_TO_THE_31, TWO_TO_THE_53}) {
            String name = name();
            long start = boundary - 1;
            startTokensAt(name, start);
            long last = 0;
            for (int i = 0; i < 3; i++) {
                LockHandle h = client().acquire(name, LockOptions.noWait());
                assertThat(h.fencingToken())
                        .as("holder %d's token after force releases, tokens started at %d", i + 1, start)
                        .isGreaterThanOrEqualTo(start)
                        .isGreaterThan(last);
                last = h.fencingToken();
                assertThat(client().getLock(name).forceUnlock()).isTrue();
            }
        }
    }

    /*
     * Across a lapse past 2^31 only: a backend may take a name's next token from a clock once the
     * state of a lapsed lock is gone with its lease (lock-jedis: the server's microseconds, about
     * 2^50.7 now, 2^53 in the year 2255), and a counter started above that clock is a state such a
     * backend never reaches by itself.
     */
    @Test
    @DisplayName("tokens strictly increase across lapsed leases past 2^31")
    void tokensIncreaseAcrossExpiryPastTwoToThe31() throws Exception {
        assume(Capability.FENCING_TOKENS);
        assume(Capability.EXPLICIT_LEASE);
        String name = name();
        long start = TWO_TO_THE_31 - 1;
        startTokensAt(name, start);
        LockOptions shortLease = LockOptions.builder()
                .waitAtMost(scaled(Duration.ofSeconds(5)))
                .lease(scaled(Duration.ofMillis(300)))
                .build();
        long last = 0;
        for (int i = 0; i < 3; i++) {
            LockHandle h = client().acquire(name, shortLease); // left to lapse
            assertThat(h.fencingToken())
                    .as("holder %d's token after lapses, tokens started at %d", i + 1, start)
                    .isGreaterThanOrEqualTo(start)
                    .isGreaterThan(last);
            last = h.fencingToken();
        }
    }

    @Test
    @DisplayName("asking for the token without holding the lock throws IllegalMonitorStateException")
    void tokenWithoutHoldThrows() {
        assume(Capability.FENCING_TOKENS);
        DistributedLock lock = client().getLock(name());
        assertThatThrownBy(lock::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(lock::remainingLease).isInstanceOf(IllegalMonitorStateException.class);
    }
}
