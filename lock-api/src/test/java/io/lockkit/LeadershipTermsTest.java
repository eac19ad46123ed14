package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.Leadership.RevocationReason;
import io.lockkit.LeadershipWorld.Call;
import io.lockkit.LeadershipWorld.Instance;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A {@link Term} from its election to its end, on the fake clock of {@link LeadershipWorld}: its
 * {@code lost()} completes before its {@code onRevoked} (and a dependent of it may close or step
 * down), a term is never announced with its lease over (an answer that came back late is confirmed
 * by a renewal first), and what a term and a leadership tell of their time: the lease in force and
 * the election's wall-clock time.
 */
class LeadershipTermsTest {

    private static final Duration STEP = Duration.ofMillis(50);
    /** Longer than the lease less the margin of {@link LeadershipWorld#options()} (2.7 s), shorter than the lease. */
    private static final Duration STALL = Duration.ofMillis(2800);

    private final LeadershipWorld world = new LeadershipWorld();

    @AfterEach
    void closeWorld() throws Exception {
        world.close();
    }

    /**
     * Records, per term, when its slow {@code lost()} dependent returned and when its
     * {@code onRevoked} started (real time); the dependent takes {@link #SLOW} unless
     * {@code onRevoked} starts meanwhile, so an {@code onRevoked} that does not wait shows.
     */
    private static final class Order {
        static final Duration SLOW = Duration.ofMillis(300);
        final Map<Long, CountDownLatch> revokedStarted = new ConcurrentHashMap<>();
        final Map<Long, Long> lostEnded = new ConcurrentHashMap<>();
        final Map<Long, Long> revokedStart = new ConcurrentHashMap<>();

        void elected(Term t) {
            var unused = t.lost().thenRun(() -> {
                try {
                    var unused2 = latch(t).await(SLOW.toNanos(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                lostEnded.put(t.fencingToken(), System.nanoTime());
            });
        }

        void revoked(Term t, RevocationReason reason) {
            revokedStart.put(t.fencingToken(), System.nanoTime());
            latch(t).countDown();
        }

        private CountDownLatch latch(Term t) {
            return revokedStarted.computeIfAbsent(t.fencingToken(), k -> new CountDownLatch(1));
        }

        /** The terms whose onRevoked started before their lost() dependent returned. */
        List<String> broken() {
            List<String> out = new ArrayList<>();
            revokedStart.forEach((token, start) -> {
                Long lost = lostEnded.get(token);
                if (lost == null || start - lost <= 0) {
                    out.add("term " + token + ": onRevoked started "
                            + (lost == null
                                    ? "with its lost() dependent not returned"
                                    : (lost - start) + " ns before its lost() dependent returned"));
                }
            });
            return out;
        }
    }

    @Test
    @DisplayName(
            "lost() completes, its dependents returned, before onRevoked starts: for a step down, a lease run out in an outage, and a close")
    void lostCompletesBeforeOnRevoked() {
        Order order = new Order();
        Instance a = world.instance(
                "A", LeadershipWorld.options(o -> o.rejoinDelay(Duration.ZERO)), order::elected, order::revoked);
        a.leadership.start();
        a.awaitLeading();
        a.awaitCalls(1);
        a.leadership.stepDown(); // revoked on this thread

        Term expiring = a.awaitLeading();
        a.awaitCalls(3);
        world.backend.stopBackend();
        await("the lease runs out in the outage").atMost(Duration.ofSeconds(10)).until(() -> {
            world.advance(STEP, STEP); // revoked on this thread too, running the scheduler's timer
            return expiring.revocation().isPresent();
        });
        world.backend.startBackend();
        await("elected again").atMost(Duration.ofSeconds(20)).until(() -> {
            world.advance(STEP, STEP);
            return a.leadership.isLeader();
        });
        a.awaitCalls(5);
        a.leadership.close();

        assertThat(a.calls())
                .extracting(Call::reason)
                .containsExactly(
                        null,
                        RevocationReason.STEPPED_DOWN,
                        null,
                        RevocationReason.LEASE_EXPIRED,
                        null,
                        RevocationReason.CLOSED);
        assertThat(order.revokedStart).hasSize(3);
        assertThat(order.broken())
                .as("terms whose onRevoked did not wait for lost()")
                .isEmpty();
    }

    /** Options whose close() and stepDown() wait up to the 30 s lease for a callback (in real time). */
    private static LeadershipOptions.Builder longLease() {
        return LeadershipWorld.options(o -> o.lease(Duration.ofSeconds(30))
                .renewalInterval(Duration.ofSeconds(10))
                .revocationMargin(Duration.ofSeconds(3))
                .rejoinDelay(Duration.ofSeconds(30)));
    }

    @Test
    @DisplayName(
            "close() and stepDown() called from a lost() dependent return at once, not after the 30 s lease; onRevoked follows, before the release")
    void closeOrStepDownFromALostDependent() {
        List<Long> returnedAfterMillis = new CopyOnWriteArrayList<>();
        AtomicBoolean heldDuringOnRevoked = new AtomicBoolean();
        Instance[] self = new Instance[2];
        Instance a = world.instance(
                "A",
                longLease(),
                t -> onLost(t, () -> self[0].leadership.close(), returnedAfterMillis),
                (t, r) -> heldDuringOnRevoked.set(!world.lockIsFree()));
        Instance b = world.instance(
                "B",
                longLease(),
                t -> onLost(t, () -> self[1].leadership.stepDown(), returnedAfterMillis),
                (t, r) -> {});
        self[0] = a;
        self[1] = b;
        a.leadership.start();
        a.awaitLeading();
        a.awaitCalls(1);
        a.leadership.stepDown(); // revoked here; the dependent closes
        assertThat(returnedAfterMillis)
                .as("ms the dependent's close() took")
                .singleElement()
                .satisfies(ms -> assertThat(ms).isLessThan(10_000));
        assertThat(a.calls()).extracting(Call::reason).containsExactly(null, RevocationReason.STEPPED_DOWN);
        assertThat(heldDuringOnRevoked).as("the lock held while onRevoked ran").isTrue();
        assertThat(world.lockIsFree()).as("released once stepDown() returned").isTrue();
        assertThatThrownBy(a.leadership::start).as("closed by the dependent").isInstanceOf(IllegalStateException.class);

        b.leadership.start();
        b.awaitLeading();
        b.awaitCalls(1);
        assertThat(b.factory.operations().forceRelease(LeadershipWorld.NAME))
                .isTrue(); // revoked here; the dependent steps down
        assertThat(returnedAfterMillis)
                .as("ms the dependent's stepDown() took")
                .hasSize(2)
                .last()
                .satisfies(ms -> assertThat(ms).isLessThan(10_000));
        b.awaitCalls(2);
        assertThat(b.calls()).extracting(Call::reason).containsExactly(null, RevocationReason.FORCE_RELEASED);
        world.advance(Duration.ofSeconds(10), STEP);
        assertThat(b.leadership.isLeader()).as("sitting out its rejoin delay").isFalse();
    }

    /** Adds a dependent to {@code t}'s lost() that runs {@code call} and notes how long it took. */
    private static void onLost(Term t, Runnable call, List<Long> tookMillis) {
        var unused = t.lost().thenRun(() -> {
            long start = System.nanoTime();
            call.run();
            tookMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        });
    }

    /**
     * A client whose next {@code acquireStalls} winning answers, and next {@code renewalStalls}
     * renewal answers, come back {@link #STALL} late (the fake clock moves while they travel back),
     * running {@code duringStall} meanwhile; it counts renewals and records the tokens it won.
     */
    private final class Stalling extends ForwardingLockProvider {
        final AtomicInteger acquireStalls = new AtomicInteger();
        final AtomicInteger renewalStalls = new AtomicInteger();
        final AtomicInteger renewals = new AtomicInteger();
        final List<Long> won = new CopyOnWriteArrayList<>();
        volatile Runnable duringStall = () -> {};

        Stalling(LockProvider delegate) {
            super(delegate);
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            Acquisition a = super.tryAcquire(request);
            if (a.isAcquired()) {
                won.add(a.fencingToken());
                if (acquireStalls.getAndDecrement() > 0) {
                    world.ticker.advance(STALL);
                    duringStall.run();
                }
            }
            return a;
        }

        @Override
        public List<Renewal> renew(List<Renewal> renewals) {
            this.renewals.incrementAndGet();
            List<Renewal> gone = super.renew(renewals);
            if (renewalStalls.getAndDecrement() > 0) {
                world.ticker.advance(STALL);
            }
            return gone;
        }
    }

    private Instance stalled(Stalling[] client, List<Duration> leaseAtElection) {
        return world.instance(
                "A",
                LeadershipWorld.options(),
                t -> leaseAtElection.add(t.isValid() ? t.remainingLease() : Duration.ZERO),
                (t, r) -> {},
                p -> client[0] = new Stalling(p));
    }

    @Test
    @DisplayName(
            "a term won by an answer that came back after the term's end (lease less margin) is confirmed by a renewal and announced with its lease")
    void lateWinIsConfirmedByARenewal() {
        Stalling[] client = new Stalling[1];
        List<Duration> leaseAtElection = new CopyOnWriteArrayList<>();
        Instance a = stalled(client, leaseAtElection);
        client[0].acquireStalls.set(1);
        a.leadership.start();
        Term term = a.awaitLeading();
        a.awaitCalls(1);
        assertThat(leaseAtElection)
                .as("the term's lease when onElected ran: the renewal's, less the margin")
                .containsExactly(Duration.ofMillis(2700));
        assertThat(client[0].renewals).as("renewals that confirmed the win").hasValue(1);
        assertThat(term.revocation()).isEmpty();
        assertThat(term.fencingToken()).isEqualTo(client[0].won.get(0));
        world.advance(Duration.ofSeconds(5), STEP);
        assertThat(a.leadership.currentTerm()).as("kept by its renewals").contains(term);
    }

    @Test
    @DisplayName(
            "a late win whose confirming renewal comes back late too, or finds the hold gone, is given back unannounced; the campaign goes on")
    void lateWinThatCannotBeConfirmedIsNotAnnounced() {
        Stalling[] client = new Stalling[1];
        List<Duration> leaseAtElection = new CopyOnWriteArrayList<>();
        Instance a = stalled(client, leaseAtElection);
        client[0].acquireStalls.set(2);
        client[0].renewalStalls.set(1); // the first win's renewal is late too
        AtomicInteger stalls = new AtomicInteger();
        client[0].duringStall = () -> {
            if (stalls.incrementAndGet() == 2) {
                world.backend.forceRelease(LeadershipWorld.NAME); // the second win is gone when confirmed
            }
        };
        a.leadership.start();
        Term term = a.awaitLeading();
        a.awaitCalls(1);
        assertThat(client[0].won).as("the tokens won").hasSize(3);
        assertThat(term.fencingToken()).isEqualTo(client[0].won.get(2));
        assertThat(a.calls())
                .extracting(Call::kind, Call::token)
                .as("only the third win announced")
                .containsExactly(org.assertj.core.groups.Tuple.tuple("elected", term.fencingToken()));
        assertThat(leaseAtElection).containsExactly(Duration.ofMillis(2700));
        assertThat(client[0].renewals).as("one renewal for each late win").hasValue(2);
    }

    @Test
    @DisplayName(
            "lease() is the lease in force (the options' or the factory's default watchdog lease); electedAt() reads the factory's clock")
    void leaseAndElectionTime() throws Exception {
        Instant noon = Instant.parse("2030-06-01T12:00:00Z");
        try (DistributedLockFactory locks = DistributedLockFactory.builder(new LocalLockProvider())
                .defaultOptions(LockOptions.builder()
                        .watchdogLease(Duration.ofSeconds(12))
                        .build())
                .clock(Clock.fixed(noon, ZoneOffset.UTC))
                .build()) {
            Leadership byDefault = locks.leadership("terms-default", LeadershipOptions.DEFAULTS);
            assertThat(LeadershipOptions.DEFAULTS.lease()).isEmpty();
            assertThat(byDefault.lease()).isEqualTo(Duration.ofSeconds(12));
            Leadership set = locks.leadership(
                    "terms-set",
                    LeadershipOptions.builder().lease(Duration.ofSeconds(4)).build());
            assertThat(set.lease()).isEqualTo(Duration.ofSeconds(4));

            Term term = set.start().awaitTerm(Duration.ofSeconds(10)).orElseThrow();
            assertThat(term.electedAt()).isEqualTo(noon);
            assertThat(term.toString()).contains(noon.toString());
            assertThat(term.remainingLease()).isLessThanOrEqualTo(Duration.ofSeconds(4));
        }
        assertThatThrownBy(() ->
                        DistributedLockFactory.builder(new LocalLockProvider()).clock(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clock");
    }
}
