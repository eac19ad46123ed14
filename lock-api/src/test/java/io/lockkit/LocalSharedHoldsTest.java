package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LocalLockProvider} admitting claims by the rule {@link Claim} states, through the SPI alone. */
class LocalSharedHoldsTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WAITING = Duration.ofSeconds(10);
    private static final Claim READ = Claim.shared(1, Claim.UNBOUNDED);

    private final FakeTicker ticker = new FakeTicker();
    private final LocalLockProvider backend = new LocalLockProvider(ticker);

    @AfterEach
    void close() {
        backend.close();
    }

    private Acquisition attempt(String owner, Claim claim, Duration wait) {
        return backend.tryAcquire(new LockRequest("n", owner, LEASE, wait, 0, claim));
    }

    private Acquisition attempt(String owner, Claim claim) {
        return attempt(owner, claim, Duration.ZERO);
    }

    @Test
    void readersShareAndAWriterWaitsForTheLast() {
        Acquisition r1 = attempt("a:t1r", READ);
        Acquisition r2 = attempt("b:t1r", READ);
        assertThat(r1.isAcquired()).isTrue();
        assertThat(r2.isAcquired()).isTrue();
        assertThat(r2.fencingToken()).isGreaterThan(r1.fencingToken());
        assertThat(attempt("c:t1", Claim.EXCLUSIVE).isAcquired()).isFalse();

        backend.release("n", "a:t1r");
        assertThat(attempt("c:t1", Claim.EXCLUSIVE).isAcquired()).isFalse();
        backend.release("n", "b:t1r");
        Acquisition w = attempt("c:t1", Claim.EXCLUSIVE);
        assertThat(w.isAcquired()).isTrue();
        assertThat(w.fencingToken()).isGreaterThan(r2.fencingToken());
        assertThat(attempt("a:t1r", READ).isAcquired())
                .as("no reader beside a writer")
                .isFalse();
        assertThat(attempt("a:t1r", READ).fencingToken()).isZero();
    }

    @Test
    void aWaitingWriterKeepsNewReadersOutButNotReentrantOnes() {
        attempt("a:t1r", READ);
        assertThat(attempt("w:t1", Claim.EXCLUSIVE, WAITING).isAcquired()).isFalse(); // queued

        assertThat(attempt("b:t1r", READ).isAcquired()).as("writer preference").isFalse();
        assertThat(attempt("a:t1r", READ).isAcquired())
                .as("a reader that holds reads again")
                .isTrue();

        backend.release("n", "a:t1r");
        backend.release("n", "a:t1r");
        assertThat(attempt("w:t1", Claim.EXCLUSIVE, WAITING).isAcquired()).isTrue();
    }

    @Test
    void aWriterThatStopsAskingLetsReadersInAfterItsQueueEntryLapses() {
        attempt("a:t1r", READ);
        attempt("w:t1", Claim.EXCLUSIVE, Duration.ofMillis(500)); // gives up without abandoning
        assertThat(attempt("b:t1r", READ).isAcquired()).isFalse();

        ticker.advance(Duration.ofMillis(500).plusNanos(LocalName.QUEUE_SLACK_NANOS));

        assertThat(attempt("b:t1r", READ).isAcquired()).isTrue();
    }

    @Test
    void anAbandonedWaitBlocksNobody() {
        attempt("a:t1r", READ);
        attempt("w:t1", Claim.EXCLUSIVE, WAITING);

        backend.abandon("n", "w:t1", 1);

        assertThat(attempt("b:t1r", READ).isAcquired()).isTrue();
    }

    @Test
    void aWriterMayTakeTheReadLockBesideItsOwnHold() {
        attempt("a:t1", Claim.EXCLUSIVE);

        assertThat(attempt("b:t1r", READ.beside("b:t1")).isAcquired())
                .as("beside an owner that does not hold it")
                .isFalse();
        Acquisition read = attempt("a:t1r", READ.beside("a:t1"));
        assertThat(read.isAcquired()).isTrue();
        backend.release("n", "a:t1");
        assertThat(attempt("b:t1r", READ).isAcquired())
                .as("downgraded: readers share")
                .isTrue();
        assertThat(attempt("c:t1", Claim.EXCLUSIVE).isAcquired()).isFalse();
    }

    @Test
    void permitsCountPerHoldAgainstTheStoredCapacity() {
        assertThat(attempt("a:h1", Claim.shared(2, 3)).isAcquired()).isTrue();
        assertThat(attempt("a:h2", Claim.shared(1, 3)).isAcquired()).isTrue();
        assertThat(attempt("b:h1", Claim.shared(1, 3)).isAcquired()).isFalse();
        assertThat(attempt("b:h1", Claim.shared(1, 5)).isAcquired())
                .as("the capacity stored with the name governs")
                .isFalse();
        assertThatThrownBy(() -> attempt("b:h2", Claim.shared(4, 5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits must not exceed the capacity 3");

        assertThat(backend.release("n", "a:h2")).isEqualTo(Release.RELEASED);
        assertThat(attempt("b:h1", Claim.shared(1, 3)).isAcquired()).isTrue();
        assertThat(backend.inspect("n").orElseThrow().holdCounts()).containsOnlyKeys("a:h1", "b:h1");
    }

    @Test
    void aLapsedHoldersPermitsComeBackWhileOthersStillHold() {
        backend.tryAcquire(
                new LockRequest("n", "dead:h1", Duration.ofSeconds(1), Duration.ZERO, 0, Claim.shared(2, 2)));
        assertThat(attempt("b:h1", Claim.shared(1, 2)).isAcquired()).isFalse();

        ticker.advance(Duration.ofSeconds(1));

        assertThat(attempt("b:h1", Claim.shared(1, 2)).isAcquired()).isTrue();
        assertThat(attempt("b:h2", Claim.shared(1, 2)).isAcquired()).isTrue();
        assertThat(backend.release("n", "dead:h1"))
                .as("a lapsed permit frees nothing")
                .isEqualTo(Release.NOT_HELD);
        assertThat(attempt("c:h1", Claim.shared(1, 2)).isAcquired()).isFalse();
    }

    @Test
    void aFairClaimQueuesBehindEarlierWaiters() {
        attempt("h:t1", Claim.EXCLUSIVE);
        assertThat(attempt("a:t1", Claim.EXCLUSIVE.fairly(), WAITING).isAcquired())
                .isFalse(); // first in line
        backend.release("n", "h:t1");

        assertThat(attempt("b:t1", Claim.EXCLUSIVE.fairly(), WAITING).isAcquired())
                .as("behind a")
                .isFalse();
        assertThat(attempt("a:t1", Claim.EXCLUSIVE.fairly(), WAITING).isAcquired())
                .isTrue();
        backend.release("n", "a:t1");
        assertThat(attempt("b:t1", Claim.EXCLUSIVE.fairly(), WAITING).isAcquired())
                .isTrue();
    }

    @Test
    void aFairSemaphoreServesALargeWaiterBeforeSmallerLaterOnes() {
        attempt("a:h1", Claim.shared(2, 3));
        assertThat(attempt("big:h1", Claim.shared(3, 3).fairly(), WAITING).isAcquired())
                .isFalse();

        assertThat(attempt("small:h1", Claim.shared(1, 3).fairly(), WAITING).isAcquired())
                .as("one permit is free, but the waiter for three came first")
                .isFalse();
        backend.release("n", "a:h1");
        assertThat(attempt("big:h1", Claim.shared(3, 3).fairly(), WAITING).isAcquired())
                .isTrue();
    }
}
