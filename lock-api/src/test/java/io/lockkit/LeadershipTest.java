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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Every transition of a {@link Leadership} over the in-JVM backend on a fake clock: election,
 * waiting, step down (also during an election), close (also during a callback), listeners that
 * throw, a lease that runs out in a backend outage, losses, a paused leader, the factory's close.
 * Time moves only when a test moves it; what the leadership threads do in between is awaited.
 */
class LeadershipTest {

    private final LeadershipWorld world = new LeadershipWorld();

    @AfterEach
    void closeWorld() throws Exception {
        world.close();
    }

    private static final Duration STEP = Duration.ofMillis(50);

    @Test
    @DisplayName("a lone candidate is elected, keeps its term through renewals on its own thread, and close revokes it")
    void loneCandidateLeadsUntilClosed() {
        Instance a = world.instance("A", LeadershipWorld.options());
        assertThat(a.leadership.isLeader()).isFalse();
        a.leadership.start();
        Term term = a.awaitLeading();
        assertThat(term.fencingToken()).isPositive();
        assertThat(term.name()).isEqualTo(LeadershipWorld.NAME);
        world.advance(Duration.ofSeconds(10), STEP);
        assertThat(a.leadership.currentTerm()).contains(term);
        assertThat(term.isValid()).isTrue();
        assertThat(term.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(2700));

        a.leadership.close();
        assertThat(a.leadership.isLeader()).isFalse();
        assertThat(term.revocation()).contains(RevocationReason.CLOSED);
        assertThat(term.lost().toCompletableFuture()).isCompletedWithValue(RevocationReason.CLOSED);
        assertThat(a.calls())
                .extracting(Call::kind, Call::reason)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("elected", null),
                        org.assertj.core.groups.Tuple.tuple("revoked", RevocationReason.CLOSED));
        assertThat(a.calls()).extracting(Call::thread).containsOnly("lockkit-leadership-" + LeadershipWorld.NAME);
        assertThat(world.lockIsFree()).as("the lock after close").isTrue();
        assertThatThrownBy(a.leadership::start).isInstanceOf(IllegalStateException.class);
        a.leadership.close(); // idempotent
    }

    @Test
    @DisplayName(
            "the others wait; a step down revokes the leader before the next is elected with a larger token, and the leader sits out")
    void stepDownHandsOverToAWaitingInstance() {
        Instance a = world.instance("A", LeadershipWorld.options());
        Instance b = world.instance("B", LeadershipWorld.options());
        a.leadership.start();
        Term first = a.awaitLeading();
        b.leadership.start();
        b.awaitCampaigning();
        world.advance(Duration.ofSeconds(5), STEP);
        assertThat(b.leadership.isLeader()).as("B while A leads").isFalse();

        a.leadership.stepDown();
        assertThat(a.leadership.isLeader()).isFalse();
        assertThat(first.revocation()).contains(RevocationReason.STEPPED_DOWN);
        Term second = b.awaitLeading();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        Call revoked = a.calls().get(1);
        Call elected = b.calls().get(0);
        assertThat(revoked.reason()).isEqualTo(RevocationReason.STEPPED_DOWN);
        assertThat(world.calls.indexOf(revoked))
                .as("A's onRevoked finished before B's onElected was recorded")
                .isLessThan(world.calls.indexOf(elected));

        // A sits out its 3 s rejoin delay even when nobody leads.
        world.advance(Duration.ofMillis(2900), STEP);
        b.leadership.close();
        assertThat(world.lockIsFree()).isTrue();
        assertThat(a.leadership.isLeader()).isFalse();
        world.advance(Duration.ofMillis(200), STEP);
        Term third = a.awaitLeading();
        assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
    }

    @Test
    @DisplayName("a lone leader that steps down is not re-elected before its rejoin delay, unless start() asks")
    void steppedDownLeaderSitsOutUnlessStarted() throws Exception {
        Instance a = world.instance("A", LeadershipWorld.options());
        a.leadership.start();
        Term first = a.awaitLeading();
        a.leadership.stepDown();
        assertThat(world.lockIsFree()).as("released by the step down").isTrue();
        world.advance(Duration.ofMillis(2900), STEP);
        assertThat(a.leadership.awaitTerm(Duration.ofMillis(200)))
                .as("within the rejoin delay")
                .isEmpty();

        a.leadership.start();
        Term second = a.awaitLeading();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

        a.leadership.stepDown();
        world.advance(Duration.ofSeconds(3), STEP);
        assertThat(a.awaitLeading().fencingToken()).isGreaterThan(second.fencingToken());
    }

    @Test
    @DisplayName(
            "a step down during an election gives up the campaign: no term, and no campaign until the rejoin delay")
    void stepDownDuringAnElection() {
        Instance a = world.instance("A", LeadershipWorld.options());
        Instance b = world.instance("B", LeadershipWorld.options());
        a.leadership.start();
        a.awaitLeading();
        b.leadership.start();
        b.awaitCampaigning();

        b.leadership.stepDown();
        await("B's wait given up").atMost(Duration.ofSeconds(10)).until(() -> b.provider.subscriptions() == 0);
        a.leadership.close();
        assertThat(world.lockIsFree()).as("after A closed, with B sitting out").isTrue();
        assertThat(b.calls()).isEmpty();

        world.advance(Duration.ofSeconds(3), STEP);
        b.awaitLeading();
        assertThat(b.calls()).extracting(Call::kind).containsExactly("elected");
    }

    @Test
    @DisplayName("a lock won while a step down arrives is given back unannounced")
    void winRacingAStepDownIsGivenBack() throws Exception {
        CountDownLatch inAttempt = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        Instance b = world.instance(
                "B", LeadershipWorld.options(), t -> {}, (t, r) -> {}, p -> new ForwardingLockProvider(p) {
                    @Override
                    public Acquisition tryAcquire(LockRequest request) {
                        Acquisition a = super.tryAcquire(request);
                        inAttempt.countDown();
                        try {
                            answer.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return a;
                    }
                });
        b.leadership.start();
        assertThat(inAttempt.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(world.lockIsFree()).as("held by the attempt in flight").isFalse();

        b.leadership.stepDown();
        answer.countDown();
        await("the won lock given back").atMost(Duration.ofSeconds(10)).until(world::lockIsFree);
        assertThat(b.leadership.isLeader()).isFalse();
        assertThat(b.calls()).as("callbacks of a term never announced").isEmpty();
    }

    @Test
    @DisplayName(
            "close from onElected returns at once; onRevoked(CLOSED) follows the callback, then the lock is released")
    void closeInsideOnElected() {
        AtomicReference<Leadership> self = new AtomicReference<>();
        AtomicBoolean closeReturned = new AtomicBoolean();
        Instance a = world.instance(
                "A",
                LeadershipWorld.options(),
                t -> {
                    self.get().close();
                    closeReturned.set(true);
                    assertThat(t.isValid()).as("the term right after close()").isFalse();
                },
                (t, r) -> {});
        self.set(a.leadership);
        a.leadership.start();
        a.awaitCalls(2);
        assertThat(closeReturned).isTrue();
        assertThat(a.calls())
                .extracting(Call::kind, Call::reason)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("elected", null),
                        org.assertj.core.groups.Tuple.tuple("revoked", RevocationReason.CLOSED));
        await("the lock released").atMost(Duration.ofSeconds(10)).until(world::lockIsFree);
        assertThat(a.overlaps).hasValue(0);
    }

    @Test
    @DisplayName(
            "close from another thread during onElected revokes at once and returns after the callbacks, which never overlap")
    void closeDuringACallbackFromAnotherThread() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        Instance a = world.instance(
                "A",
                LeadershipWorld.options(),
                t -> {
                    entered.countDown();
                    try {
                        proceed.await();
                    } catch (InterruptedException e) {
                        throw new AssertionError("interrupted in a callback", e);
                    }
                },
                (t, r) -> {});
        a.leadership.start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        Term term = a.leadership.currentTerm().orElseThrow();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(a.leadership::close);
        await("the term revoked by close").atMost(Duration.ofSeconds(10)).until(() -> !term.isValid());
        assertThat(term.lost().toCompletableFuture()).isCompletedWithValue(RevocationReason.CLOSED);
        assertThat(closing).as("close while onElected runs").isNotDone();
        assertThat(world.lockIsFree()).as("the lock while onElected runs").isFalse();

        proceed.countDown();
        closing.get(10, TimeUnit.SECONDS);
        assertThat(a.calls()).extracting(Call::kind).containsExactly("elected", "revoked");
        assertThat(a.overlaps).hasValue(0);
        assertThat(world.lockIsFree()).isTrue();
    }

    @Test
    @DisplayName(
            "an onElected that throws steps down (the lock released at once) and the instance campaigns again later")
    void throwingOnElectedStepsDown() {
        AtomicInteger elections = new AtomicInteger();
        Instance a = world.instance(
                "A",
                LeadershipWorld.options(),
                t -> {
                    if (elections.incrementAndGet() == 1) {
                        throw new IllegalStateException("cannot start leading (thrown by the test)");
                    }
                },
                (t, r) -> {});
        a.leadership.start();
        a.awaitCalls(2);
        assertThat(a.calls().get(1).reason()).isEqualTo(RevocationReason.STEPPED_DOWN);
        await("the lock released").atMost(Duration.ofSeconds(10)).until(world::lockIsFree);
        world.advance(Duration.ofSeconds(3), STEP);
        Term second = a.awaitLeading();
        assertThat(second.fencingToken()).isGreaterThan(a.calls().get(0).token());
    }

    @Test
    @DisplayName("an onRevoked that throws is logged; the lock is still released and the leadership goes on")
    void throwingOnRevokedDoesNotStopTheLeadership() {
        Instance a = world.instance("A", LeadershipWorld.options(), t -> {}, (t, r) -> {
            throw new IllegalStateException("thrown by the test");
        });
        Instance b = world.instance("B", LeadershipWorld.options());
        a.leadership.start();
        a.awaitLeading();
        b.leadership.start();
        b.awaitCampaigning();
        a.leadership.stepDown();
        b.awaitLeading();
        assertThat(a.calls()).extracting(Call::kind).containsExactly("elected", "revoked");
        b.leadership.close();
        world.advance(Duration.ofSeconds(3), STEP);
        a.awaitLeading();
    }

    @Test
    @DisplayName(
            "in a backend outage the term ends by the lease (less the margin) with its callbacks done by then; nobody is elected until the backend returns")
    void outageDuringATerm() {
        LeadershipOptions.Builder options = LeadershipOptions.builder()
                .lease(Duration.ofMillis(600))
                .renewalInterval(Duration.ofMillis(200))
                .revocationMargin(Duration.ofMillis(60));
        Instance a = world.instance("A", options);
        Instance b = world.instance(
                "B",
                LeadershipOptions.builder()
                        .lease(Duration.ofMillis(600))
                        .renewalInterval(Duration.ofMillis(200))
                        .revocationMargin(Duration.ofMillis(60)));
        a.leadership.start();
        Term term = a.awaitLeading();
        b.leadership.start();
        b.awaitCampaigning();
        world.advance(Duration.ofMillis(500), Duration.ofMillis(10));

        world.backend.stopBackend();
        long deadline = world.ticker.nanoTime()
                + term.remainingLease().toNanos()
                + Duration.ofMillis(60).toNanos();
        while (term.revocation().isEmpty()) {
            world.advance(Duration.ofMillis(10), Duration.ofMillis(10));
            assertThat(world.ticker.nanoTime() - deadline)
                    .as("revoked before the deadline")
                    .isNegative();
        }
        a.awaitCalls(2);
        Call revoked = a.calls().get(1);
        assertThat(revoked.reason()).isEqualTo(RevocationReason.LEASE_EXPIRED);
        assertThat(revoked.endNanos()).as("onRevoked done by the lease's end").isLessThan(deadline);
        assertThat(revoked.startNanos())
                .as("not revoked before the margin")
                .isGreaterThanOrEqualTo(deadline - 60_000_000L);

        world.advance(Duration.ofSeconds(3), Duration.ofMillis(20));
        assertThat(a.leadership.isLeader() || b.leadership.isLeader())
                .as("anyone leading while the backend is down")
                .isFalse();

        world.backend.startBackend();
        long back = world.ticker.nanoTime();
        await("someone leads again").atMost(Duration.ofSeconds(20)).until(() -> {
            world.advance(Duration.ofMillis(20), Duration.ofMillis(20));
            return a.leadership.isLeader() || b.leadership.isLeader();
        });
        assertThat(Duration.ofNanos(world.ticker.nanoTime() - back))
                .as("fake time to the next election after the backend returned")
                .isLessThanOrEqualTo(LeadershipOptions.DEFAULT_MAX_RETRY_DELAY.plusMillis(100));
        Term next = (a.leadership.isLeader() ? a : b).leadership.currentTerm().orElseThrow();
        assertThat(next.fencingToken()).isGreaterThan(term.fencingToken());
    }

    @Test
    @DisplayName(
            "a campaign against a failing backend retries with a back-off capped at maxRetryDelay, never in a tight loop")
    void campaignBacksOffWhileTheBackendFails() {
        AtomicBoolean failing = new AtomicBoolean(true);
        AtomicInteger attempts = new AtomicInteger();
        Instance a = world.instance(
                "A", LeadershipWorld.options(), t -> {}, (t, r) -> {}, p -> new ForwardingLockProvider(p) {
                    @Override
                    public Acquisition tryAcquire(LockRequest request) {
                        attempts.incrementAndGet();
                        if (failing.get()) {
                            throw new BackendUnavailableException(request.name(), "refused by the test", null);
                        }
                        return super.tryAcquire(request);
                    }
                });
        a.leadership.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> attempts.get() >= 1);
        long end = world.ticker.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (world.ticker.nanoTime() - end < 0) {
            // The thread's next back-off is a timer: let it arm it, then move time to it.
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> world.scheduler.pending() > 0);
            world.scheduler.advance(Duration.ofNanos(
                    Math.min(world.scheduler.nextDelayNanos().orElseThrow(), end - world.ticker.nanoTime())));
        }
        // 10 s of failures: 50, 100, 200, 400, 800 ms (each jittered to 50-100 %), then at most 1 s apart
        assertThat(attempts.get()).as("attempts in 10 s of failures").isBetween(10, 32);
        failing.set(false);
        await("elected once the backend answers").atMost(Duration.ofSeconds(10)).until(() -> {
            world.advance(Duration.ofMillis(20), Duration.ofMillis(20));
            return a.leadership.isLeader();
        });
    }

    @Test
    @DisplayName(
            "a force release through the own factory revokes as FORCE_RELEASED, through another as NOT_HELD; both campaign again")
    void forceReleaseRevokesTheTerm() {
        Instance a = world.instance("A", LeadershipWorld.options());
        a.leadership.start();
        Term first = a.awaitLeading();
        assertThat(a.factory.operations().forceRelease(LeadershipWorld.NAME)).isTrue();
        assertThat(first.revocation()).contains(RevocationReason.FORCE_RELEASED);
        Term second = a.awaitLeading();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

        try (DistributedLockFactory operator = DistributedLockFactory.builder(world.backend.newClient())
                .ticker(world.ticker)
                .build()) {
            assertThat(operator.operations().forceRelease(LeadershipWorld.NAME)).isTrue();
        }
        assertThat(second.isValid()).as("before the next renewal").isTrue();
        world.advance(Duration.ofMillis(1100), STEP);
        assertThat(second.revocation()).contains(RevocationReason.NOT_HELD);
        assertThat(a.awaitLeading().fencingToken()).isGreaterThan(second.fencingToken());
    }

    @Test
    @DisplayName(
            "a leader paused past its lease is no longer leader the moment it runs again, before the revocation arrives")
    void pausedLeaderKnowsAtOnce() {
        Instance a = world.instance("A", LeadershipWorld.options());
        a.leadership.start();
        Term term = a.awaitLeading();
        world.ticker.advance(Duration.ofSeconds(5)); // the clock moves, nothing of A runs
        assertThat(term.revocation()).as("delivered yet").isEmpty();
        assertThat(term.isValid()).isFalse();
        assertThat(a.leadership.isLeader()).isFalse();
        assertThat(a.leadership.currentTerm()).isEmpty();
        assertThat(term.remainingLease()).isZero();
        world.scheduler.runDue();
        a.awaitCalls(2);
        assertThat(term.revocation()).contains(RevocationReason.LEASE_EXPIRED);
    }

    @Test
    @DisplayName("a term never becomes valid again once its lease was seen run out, even if a late renewal succeeds")
    void expiredTermStaysInvalid() {
        Instance a = world.instance("A", LeadershipWorld.options());
        a.leadership.start();
        Term term = a.awaitLeading();
        // Past the term's end (deadline less margin) but not the backend's lease: a renewal still works.
        world.ticker.advance(term.remainingLease().plusMillis(10));
        assertThat(term.isValid()).isFalse();
        world.scheduler.runDue();
        assertThat(term.isValid()).isFalse();
        a.awaitCalls(2);
        assertThat(a.calls().get(1).reason()).isEqualTo(RevocationReason.LEASE_EXPIRED);
    }

    @Test
    @DisplayName("closing the factory closes its leaderships: onRevoked(CLOSED) first, then the lock goes")
    void factoryCloseClosesLeaderships() {
        Instance a = world.instance("A", LeadershipWorld.options());
        a.leadership.start();
        Term term = a.awaitLeading();
        a.factory.close();
        assertThat(term.revocation()).contains(RevocationReason.CLOSED);
        assertThat(a.calls()).extracting(Call::kind).containsExactly("elected", "revoked");
        assertThat(world.lockIsFree()).isTrue();
        assertThatThrownBy(a.leadership::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.factory.leadership("other", LeadershipOptions.DEFAULTS))
                .isInstanceOf(LockException.class);
    }

    @Test
    @DisplayName("awaitTerm: refused before start and for a bad timeout, empty on timeout and once closed")
    @SuppressWarnings("NullAway") // passes null on purpose
    void awaitTermEdges() throws Exception {
        Instance a = world.instance("A", LeadershipWorld.options());
        Instance b = world.instance("B", LeadershipWorld.options());
        assertThatThrownBy(() -> a.leadership.awaitTerm(Duration.ofMillis(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("start()");
        assertThatThrownBy(() -> a.leadership.awaitTerm(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout");
        assertThatThrownBy(() -> a.leadership.awaitTerm(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout");
        a.leadership.start();
        assertThat(a.leadership.awaitTerm(Duration.ofSeconds(10))).isPresent();
        b.leadership.start();
        assertThat(b.leadership.awaitTerm(Duration.ofMillis(100))).isEmpty();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return b.leadership.awaitTerm(Duration.ofSeconds(30)).isPresent();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        b.leadership.close();
        assertThat(waiting.get(10, TimeUnit.SECONDS))
                .as("a wait ended by close")
                .isFalse();
        assertThat(b.leadership.awaitTerm(Duration.ofSeconds(1))).isEmpty();
    }

    @Test
    @DisplayName("leadership(): bad names and options are refused naming the argument; one per name per factory")
    @SuppressWarnings("NullAway") // passes null on purpose
    void leadershipArguments() {
        Instance a = world.instance("A", LeadershipWorld.options());
        DistributedLockFactory f = a.factory;
        assertThatThrownBy(() -> f.leadership(" ", LeadershipOptions.DEFAULTS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> f.leadership("x", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("options");
        assertThatThrownBy(() -> f.leadership(LeadershipWorld.NAME, LeadershipOptions.DEFAULTS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already open");
        // Against the factory's default 30 s lease: a 25 s margin leaves no time to renew.
        assertThatThrownBy(() -> f.leadership(
                        "y",
                        LeadershipOptions.builder()
                                .revocationMargin(Duration.ofSeconds(25))
                                .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("revocationMargin");
        a.leadership.close();
        f.leadership(LeadershipWorld.NAME, LeadershipOptions.DEFAULTS).close();

        LockProvider noTokens = new ForwardingLockProvider(world.backend.newClient()) {
            @Override
            public java.util.Set<Capability> capabilities() {
                return java.util.EnumSet.complementOf(java.util.EnumSet.of(Capability.FENCING_TOKENS));
            }
        };
        try (DistributedLockFactory plain = DistributedLockFactory.create(noTokens)) {
            assertThatThrownBy(() -> plain.leadership("z", LeadershipOptions.DEFAULTS))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("fencing");
        }
    }

    @Test
    @DisplayName(
            "terms strictly increase across 20 hand-overs among 3 instances, and callbacks of one instance never overlap")
    void termsIncreaseAcrossHandOvers() {
        List<Instance> all = List.of(
                world.instance("A", LeadershipWorld.options(o -> o.rejoinDelay(Duration.ZERO))),
                world.instance("B", LeadershipWorld.options(o -> o.rejoinDelay(Duration.ZERO))),
                world.instance("C", LeadershipWorld.options(o -> o.rejoinDelay(Duration.ZERO))));
        all.forEach(i -> i.leadership.start());
        long last = 0;
        for (int i = 0; i < 20; i++) {
            await().atMost(Duration.ofSeconds(10)).until(() -> all.stream().anyMatch(x -> x.leadership.isLeader()));
            Instance leader = all.stream()
                    .filter(x -> x.leadership.isLeader())
                    .findFirst()
                    .orElseThrow();
            long token = leader.leadership.currentTerm().orElseThrow().fencingToken();
            assertThat(token).isGreaterThan(last);
            last = token;
            leader.leadership.stepDown();
        }
        all.forEach(i -> assertThat(i.overlaps).hasValue(0));
        List<Long> elected = world.calls.stream()
                .filter(c -> c.kind().equals("elected"))
                .map(Call::token)
                .toList();
        assertThat(elected).isSorted().doesNotHaveDuplicates();
    }
}
