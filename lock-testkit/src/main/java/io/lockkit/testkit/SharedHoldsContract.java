package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Shared holds" ({@link LockContractTest.SharedHolds}): the provider admits {@link Claim}s by the
 * one rule the read/write lock and the semaphore are built on, judged through the SPI alone, where
 * a wrong answer cannot hide behind the core. Skipped, visibly, unless the provider declares
 * {@link Capability#SHARED_HOLDS}. The Redisson faults named are the ones each test would catch.
 */
abstract class SharedHoldsContract extends ContractGroup {

    static final Claim READ = Claim.shared(1, Claim.UNBOUNDED);
    private static final Duration LEASE = Duration.ofSeconds(30);

    private LockProvider backend;
    private String name;

    SharedHoldsContract(LockContractTest kit) {
        super(kit);
    }

    @BeforeEach
    void sharedHoldsDeclared() {
        assume(Capability.SHARED_HOLDS);
        backend = closeAfterTest(provider());
        name = name();
    }

    private Acquisition attempt(String owner, Claim claim, Duration lease, Duration wait) {
        return backend.tryAcquire(new LockRequest(name, owner, lease, wait, 0, claim));
    }

    private Acquisition attempt(String owner, Claim claim) {
        return attempt(owner, claim, LEASE, Duration.ZERO);
    }

    private boolean admits(String owner, Claim claim) {
        return attempt(owner, claim).isAcquired();
    }

    @Test
    @DisplayName("readers share a name, a writer waits for the last of them, and every hold's token is larger")
    void readersShareAndAWriterWaitsForTheLast() {
        Acquisition r1 = attempt("a:t1r", READ);
        Acquisition r2 = attempt("b:t1r", READ);
        assertThat(r1.isAcquired()).isTrue();
        assertThat(r2.isAcquired()).as("a second reader beside the first").isTrue();
        assertThat(admits("c:t1", Claim.EXCLUSIVE))
                .as("a writer beside readers")
                .isFalse();

        assertThat(backend.release(name, "a:t1r")).isEqualTo(Release.RELEASED);
        assertThat(admits("c:t1", Claim.EXCLUSIVE))
                .as("a writer while one reader still holds")
                .isFalse();
        assertThat(backend.release(name, "b:t1r")).isEqualTo(Release.RELEASED);
        Acquisition w = attempt("c:t1", Claim.EXCLUSIVE);
        assertThat(w.isAcquired()).isTrue();
        assertThat(admits("a:t1r", READ)).as("a reader while a writer holds").isFalse();
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(r2.fencingToken()).isGreaterThan(r1.fencingToken());
            assertThat(w.fencingToken()).isGreaterThan(r2.fencingToken());
        }
        assertThat(backend.release(name, "c:t1")).isEqualTo(Release.RELEASED);
        Acquisition r3 = attempt("a:t1r", READ);
        assertThat(r3.isAcquired()).isTrue();
        if (has(Capability.FENCING_TOKENS)) {
            assertThat(r3.fencingToken())
                    .as("a read hold's token is larger than the earlier write hold's")
                    .isGreaterThan(w.fencingToken());
        }
    }

    @Test
    @DisplayName("a queued writer keeps new readers out (writer preference), but not a reader that already holds")
    void aWaitingWriterKeepsNewReadersOut() {
        attempt("a:t1r", READ);
        assertThat(attempt("w:t1", Claim.EXCLUSIVE, LEASE, scaled(Duration.ofSeconds(20)))
                        .isAcquired())
                .isFalse();

        assertThat(admits("b:t1r", READ))
                .as("a new reader behind a queued writer")
                .isFalse();
        assertThat(admits("a:t1r", READ))
                .as("a reader that holds, reading again")
                .isTrue();

        backend.release(name, "a:t1r");
        backend.release(name, "a:t1r");
        assertThat(attempt("w:t1", Claim.EXCLUSIVE, LEASE, scaled(Duration.ofSeconds(20)))
                        .isAcquired())
                .isTrue();
    }

    @Test
    @DisplayName(
            "a queued writer that stops asking blocks readers for a bounded time only; one that abandons, not at all")
    void aWriterThatStopsAskingLetsReadersIn() {
        attempt("a:t1r", READ);
        attempt("w:t1", Claim.EXCLUSIVE, LEASE, Duration.ofMillis(300)); // then never asks again
        assertThat(admits("b:t1r", READ)).isFalse();
        await("a reader admitted once the silent writer's place lapsed")
                .atMost(scaled(Duration.ofSeconds(20)))
                .until(() -> admits("b:t1r", READ));

        attempt("v:t1", Claim.EXCLUSIVE, LEASE, scaled(Duration.ofSeconds(20)));
        backend.abandon(name, "v:t1", 0);
        assertThat(admits("c:t1r", READ))
                .as("after the writer abandoned its wait")
                .isTrue();
    }

    @Test
    @DisplayName("a writer may take the read lock beside its own hold and downgrade; nobody else may stand beside it")
    void aWriterMayReadBesideItsOwnHold() {
        assertThat(admits("a:t1", Claim.EXCLUSIVE)).isTrue();
        assertThat(admits("b:t1r", READ.beside("b:t1")))
                .as("a claim beside an owner that does not hold the name")
                .isFalse();
        assertThat(admits("a:t1r", READ.beside("a:t1"))).isTrue();

        assertThat(backend.release(name, "a:t1")).isEqualTo(Release.RELEASED);
        assertThat(admits("c:t1", Claim.EXCLUSIVE))
                .as("a writer after the downgrade: the read hold remains")
                .isFalse();
        assertThat(admits("b:t1r", READ))
                .as("readers share after the downgrade")
                .isTrue();
    }

    @Test
    @DisplayName("a reader's release ends its own hold only, never another reader's or the name (Redisson #891)")
    void aReadersReleaseEndsItsOwnHoldOnly() {
        attempt("a:t1r", READ);
        attempt("b:t1r", READ);
        assertThat(backend.release(name, "a:t1r")).isEqualTo(Release.RELEASED);
        assertThat(backend.release(name, "a:t1r")).isEqualTo(Release.NOT_HELD);

        assertThat(admits("w:t1", Claim.EXCLUSIVE)).as("b still reads").isFalse();
        assertThat(backend.renew(List.of(new Renewal(name, "b:t1r", LEASE))))
                .as("b's hold renews: nothing reported gone")
                .isEmpty();
        assertThat(backend.inspect(name).orElseThrow().holdCounts()).containsOnlyKeys("b:t1r");
    }

    @Test
    @DisplayName("a reentrant hold with a shorter lease never cuts the hold's lease (Redisson #1110)")
    void aShorterReentrantLeaseNeverCutsTheHold() throws InterruptedException {
        assertThat(attempt("a:t1r", READ, scaled(Duration.ofSeconds(30)), Duration.ZERO)
                        .isAcquired())
                .isTrue();
        assertThat(attempt("a:t1r", READ, Duration.ofMillis(200), Duration.ZERO).isAcquired())
                .isTrue();
        Thread.sleep(scaled(Duration.ofMillis(600)).toMillis()); // past the shorter lease
        assertThat(admits("w:t1", Claim.EXCLUSIVE))
                .as("a writer after the shorter reentrant lease ran out: the read hold must stand")
                .isFalse();
        assertThat(backend.inspect(name).orElseThrow().holdCounts()).containsEntry("a:t1r", 2);
    }

    @Test
    @DisplayName("permits count per hold against the capacity stored with the name, which the first claim sets")
    void permitsCountPerHoldAgainstTheStoredCapacity() {
        assertThat(admits("a:h1", Claim.shared(2, 3))).isTrue();
        assertThat(admits("a:h2", Claim.shared(1, 3)))
                .as("a second hold of the same client")
                .isTrue();
        assertThat(admits("b:h1", Claim.shared(1, 3)))
                .as("a fourth permit of three")
                .isFalse();
        assertThat(admits("b:h1", Claim.shared(1, 5)))
                .as("a claim naming a larger capacity: the stored one governs")
                .isFalse();
        assertThatThrownBy(() -> attempt("b:h2", Claim.shared(4, 5)))
                .as("more permits than the stored capacity")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits");

        assertThat(backend.release(name, "a:h2")).isEqualTo(Release.RELEASED);
        assertThat(admits("b:h1", Claim.shared(1, 3))).isTrue();
        assertThat(backend.inspect(name).orElseThrow().holdCounts()).containsOnlyKeys("a:h1", "b:h1");
    }

    @Test
    @DisplayName(
            "a crashed holder's permits come back when its lease ends, while others hold; its late release frees nothing")
    void aLapsedHoldersPermitsComeBack() {
        Duration shortLease = scaled(Duration.ofMillis(500));
        assertThat(attempt("dead:h1", Claim.shared(1, 3), shortLease, Duration.ZERO)
                        .isAcquired())
                .isTrue();
        assertThat(attempt("live:h1", Claim.shared(2, 3), LEASE, Duration.ZERO).isAcquired())
                .isTrue();
        assertThat(admits("b:h1", Claim.shared(1, 3))).isFalse();

        await("the lapsed holder's permit back in the pool")
                .atMost(scaled(Duration.ofSeconds(10)))
                .until(() -> admits("b:h1", Claim.shared(1, 3)));
        assertThat(backend.release(name, "dead:h1"))
                .as("the release of a lapsed permit")
                .isEqualTo(Release.NOT_HELD);
        assertThat(admits("c:h1", Claim.shared(1, 3)))
                .as("after the lapsed release: still three permits held")
                .isFalse();
        assertThat(backend.inspect(name).orElseThrow().holdCounts()).containsOnlyKeys("live:h1", "b:h1");
    }

    @Test
    @DisplayName("a renewal extends its own hold's lease only")
    void aRenewalExtendsItsOwnHoldOnly() {
        Duration shortLease = scaled(Duration.ofMillis(800));
        attempt("a:h1", Claim.shared(1, 2), shortLease, Duration.ZERO);
        attempt("b:h1", Claim.shared(1, 2), shortLease, Duration.ZERO);
        assertThat(backend.renew(List.of(new Renewal(name, "a:h1", LEASE))))
                .as("a's permit renews: nothing reported gone")
                .isEmpty();

        await("b's permit lapsed")
                .atMost(scaled(Duration.ofSeconds(10)))
                .until(() -> admits("c:h1", Claim.shared(1, 2)));
        assertThat(admits("d:h1", Claim.shared(1, 2)))
                .as("a's renewed permit still counts")
                .isFalse();
        assertThat(backend.renew(List.of(new Renewal(name, "b:h1", LEASE))))
                .as("renewing a lapsed permit reports it gone")
                .containsExactly(new Renewal(name, "b:h1", LEASE));
    }

    @Test
    @DisplayName("an exclusive claim and a semaphore's claims on one name exclude each other")
    void anExclusiveClaimExcludesPermits() {
        assertThat(admits("a:h1", Claim.shared(1, 3))).isTrue();
        assertThat(admits("x:t1", Claim.EXCLUSIVE)).isFalse();
        backend.release(name, "a:h1");
        assertThat(admits("x:t1", Claim.EXCLUSIVE)).isTrue();
        assertThat(admits("a:h1", Claim.shared(1, 3))).isFalse();
        assertThat(backend.forceRelease(name)).isTrue();
        assertThat(admits("a:h1", Claim.shared(1, 3))).isTrue();
    }

    @Test
    @DisplayName(
            "an operator's capacity governs: holders over a reduced one keep their permits, none is granted until they fit")
    void aChangedCapacityGoverns() {
        assertThat(admits("a:h1", Claim.shared(2, 4))).isTrue();
        assertThat(admits("b:h1", Claim.shared(2, 4))).isTrue();
        backend.setCapacity(name, 2);
        assertThat(admits("c:h1", Claim.shared(1, 4)))
                .as("four permits held of two")
                .isFalse();
        assertThat(backend.inspect(name).orElseThrow().holdCounts()).containsOnlyKeys("a:h1", "b:h1");
        assertThatThrownBy(() -> attempt("c:h2", Claim.shared(3, 4)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits must not exceed the capacity 2");

        backend.release(name, "a:h1");
        assertThat(admits("c:h1", Claim.shared(1, 4)))
                .as("two permits held of two")
                .isFalse();
        backend.release(name, "b:h1");
        assertThat(admits("c:h1", Claim.shared(1, 4))).isTrue();
        assertThat(admits("d:h1", Claim.shared(1, 4))).isTrue();
        assertThat(admits("e:h1", Claim.shared(1, 4))).isFalse();
        backend.setCapacity(name, 3);
        assertThat(admits("e:h1", Claim.shared(1, 4)))
                .as("after the capacity was raised")
                .isTrue();
        assertThat(backend.inspect(name).orElseThrow().capacity()).isEqualTo(3);
    }

    @Test
    @DisplayName("clients claiming permits and the whole name at once are never admitted past the rule")
    void concurrentClaimsKeepTheRule() throws Exception {
        java.util.concurrent.atomic.AtomicInteger writers = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger permits = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger admitted = new java.util.concurrent.atomic.AtomicInteger();
        java.util.List<String> broken = new java.util.concurrent.CopyOnWriteArrayList<>();
        long end = System.nanoTime() + scaled(Duration.ofSeconds(3)).toNanos();
        java.util.List<Runnable> clients = new java.util.ArrayList<>();
        for (int p = 0; p < 3; p++) {
            LockProvider mine = closeAfterTest(provider());
            for (int t = 0; t < 2; t++) {
                String owner = "c" + p + ":t" + t;
                clients.add(() -> {
                    for (int i = 0; System.nanoTime() - end < 0 && broken.isEmpty(); i++) {
                        boolean exclusive = i % 5 == 4;
                        Claim claim = exclusive ? Claim.EXCLUSIVE : Claim.shared(1, 2);
                        if (!admitted(mine, owner, claim)) {
                            continue;
                        }
                        admitted.incrementAndGet();
                        int w = exclusive ? writers.incrementAndGet() : writers.get();
                        int n = exclusive ? permits.get() : permits.incrementAndGet();
                        if (w > 1 || (w == 1 && n > 0) || n > 2) {
                            broken.add(owner + " saw " + w + " writer(s) and " + n + " permit(s) of 2");
                        }
                        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // a window for overlaps to meet
                        if (exclusive) {
                            writers.decrementAndGet();
                        } else {
                            permits.decrementAndGet();
                        }
                        mine.release(name, owner);
                    }
                });
            }
        }
        runAll(clients, Duration.ofSeconds(60));
        assertThat(broken).as("holds past the rule").isEmpty();
        assertThat(admitted.get()).as("admissions in the race").isPositive();
    }

    /** One attempt of the race; a typed backend failure (a database's deadlock victim) is not an admission. */
    private boolean admitted(LockProvider p, String owner, Claim claim) {
        try {
            return p.tryAcquire(new LockRequest(name, owner, LEASE, Duration.ZERO, 0, claim))
                    .isAcquired();
        } catch (io.lockkit.BackendUnavailableException e) {
            return false;
        }
    }
}
