package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.Leadership.RevocationReason;
import io.lockkit.LeadershipOptions;
import io.lockkit.Term;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.ForwardingLockProvider;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.Release;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * "Leadership" ({@link LockContractTest.Leadership}): {@link Leadership} over the provider under
 * test. Several clients campaign for one name
 * as separate processes would; exactly one leads; a step down or a close hands over at once, after
 * the old leader's {@code onRevoked}; a leader that cannot renew is told before anyone else is
 * elected; a leader whose hold the backend lost is told at its next renewal; terms strictly
 * increase; and an outage ends the term by its lease, elects nobody, and is over when the backend
 * returns. Times are {@link System#nanoTime()}, comparable across the clients of this JVM.
 */
abstract class LeadershipContract extends ContractGroup {

    LeadershipContract(LockContractTest kit) {
        super(kit);
    }

    /** The leaders' lease in most tests: as short as the kit's watchdog lease, so a lapse shows quickly. */
    private Duration lease() {
        return watchdogLease();
    }

    /** Time for a wake-up or a retry to turn into an election, on a loaded machine. */
    private Duration wakeUpAllowance() {
        return scaled(Duration.ofSeconds(2));
    }

    private LeadershipOptions.Builder options() {
        return LeadershipOptions.builder().lease(lease()).rejoinDelay(Duration.ZERO);
    }

    /** One campaigning instance and what its callbacks saw, in {@link System#nanoTime()}. */
    static final class Candidate {
        final String id;
        final Leadership leadership;
        final List<Callback> records = new CopyOnWriteArrayList<>();

        /** One callback: elected (reason null) or revoked, its term's token, when it started and ended. */
        record Callback(String kind, long token, @Nullable RevocationReason reason, long start, long end) {}

        Candidate(String id, DistributedLockFactory client, String name, LeadershipOptions.Builder options) {
            this.id = id;
            this.leadership = client.leadership(
                    name,
                    options.onElected(t -> record("elected", t, null))
                            .onRevoked((t, r) -> record("revoked", t, r))
                            .build());
        }

        private void record(String kind, Term t, @Nullable RevocationReason reason) {
            long start = System.nanoTime();
            records.add(new Callback(kind, t.fencingToken(), reason, start, System.nanoTime()));
        }

        Optional<Callback> find(String kind, long token) {
            return records.stream()
                    .filter(r -> r.kind().equals(kind) && r.token() == token)
                    .findFirst();
        }

        @Override
        public String toString() {
            return id + records;
        }
    }

    private Candidate candidate(String id, DistributedLockFactory client, String name) {
        return new Candidate(id, client, name, options());
    }

    private Candidate candidate(
            String id, DistributedLockFactory client, String name, UnaryOperator<LeadershipOptions.Builder> change) {
        return new Candidate(id, client, name, change.apply(options()));
    }

    /** Waits until exactly one of {@code all} leads, and returns it. */
    private Candidate awaitOneLeader(List<Candidate> all, Duration bound, String what) {
        await(what)
                .atMost(bound)
                .pollInterval(Duration.ofMillis(10))
                .until(() -> leaders(all).size() == 1);
        return leaders(all).get(0);
    }

    private static List<Candidate> leaders(List<Candidate> all) {
        return all.stream().filter(c -> c.leadership.isLeader()).collect(Collectors.toList());
    }

    /** Samples how many of {@code all} lead at once, every millisecond, on a kit thread, until stopped. */
    private final class LeaderSampler {
        final AtomicInteger most = new AtomicInteger();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<String> seen = new CopyOnWriteArrayList<>();

        LeaderSampler(List<Candidate> all) {
            start("leader-sampler", () -> {
                while (!stop.get()) {
                    List<Candidate> now = leaders(all);
                    if (now.size() > most.get()) {
                        most.set(now.size());
                        seen.add(now.stream().map(c -> c.id).collect(Collectors.joining(", ")));
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            });
        }

        void assertNeverTwo() {
            stop.set(true);
            assertThat(most.get())
                    .as("most instances leading at once (sets of leaders seen: %s)", seen)
                    .isLessThanOrEqualTo(1);
        }
    }

    @Test
    @DisplayName(
            "of three instances campaigning for one name exactly one leads, through its renewals, never two at once")
    void exactlyOneLeads() {
        String name = name();
        List<Candidate> all =
                List.of(candidate("A", client(), name), candidate("B", client(), name), candidate("C", client(), name));
        LeaderSampler sampler = new LeaderSampler(all);
        all.forEach(c -> c.leadership.start());
        Candidate leader = awaitOneLeader(all, scaled(Duration.ofSeconds(10)), "one leader");
        Term term = leader.leadership.currentTerm().orElseThrow();
        await("the same leader and term through a lease of renewals")
                .during(lease())
                .atMost(lease().multipliedBy(2))
                .until(() -> leaders(all).equals(List.of(leader))
                        && leader.leadership.currentTerm().equals(Optional.of(term)));
        assertThat(term.lost().toCompletableFuture()).isNotDone();
        sampler.assertNeverTwo();
    }

    @Test
    @DisplayName(
            "a step down and a close each hand over at once (not after the 20 s lease), after the leader's onRevoked, with a larger token")
    void stepDownAndCloseHandOverAtOnce() {
        String name = name();
        Duration longLease = scaled(Duration.ofSeconds(20));
        List<Candidate> all = List.of(
                candidate("A", client(), name, o -> o.lease(longLease).rejoinDelay(longLease)),
                candidate("B", client(), name, o -> o.lease(longLease).rejoinDelay(longLease)),
                candidate("C", client(), name, o -> o.lease(longLease).rejoinDelay(longLease)));
        LeaderSampler sampler = new LeaderSampler(all);
        all.forEach(c -> c.leadership.start());
        Candidate first = awaitOneLeader(all, scaled(Duration.ofSeconds(10)), "the first leader");
        long firstToken = first.leadership.currentTerm().orElseThrow().fencingToken();

        first.leadership.stepDown();
        Candidate second = awaitOneLeader(all, wakeUpAllowance(), "a leader after the step down");
        long secondToken = second.leadership.currentTerm().orElseThrow().fencingToken();
        assertThat(second).as("the next leader").isNotSameAs(first);
        assertThat(secondToken).isGreaterThan(firstToken);
        assertToldBeforeElected(first, firstToken, second, secondToken, RevocationReason.STEPPED_DOWN);

        second.leadership.close();
        List<Candidate> others = List.of(
                all.stream().filter(c -> c != first && c != second).findFirst().orElseThrow());
        Candidate third = awaitOneLeader(others, wakeUpAllowance(), "a leader after the close");
        long thirdToken = third.leadership.currentTerm().orElseThrow().fencingToken();
        assertThat(thirdToken).isGreaterThan(secondToken);
        assertToldBeforeElected(second, secondToken, third, thirdToken, RevocationReason.CLOSED);
        sampler.assertNeverTwo();
    }

    /** {@code old}'s onRevoked for {@code oldToken} ended before {@code next}'s onElected for {@code nextToken} began. */
    private static void assertToldBeforeElected(
            Candidate old, long oldToken, Candidate next, long nextToken, RevocationReason reason) {
        await("the callbacks recorded")
                .atMost(Duration.ofSeconds(10))
                .until(() -> old.find("revoked", oldToken).isPresent()
                        && next.find("elected", nextToken).isPresent());
        Candidate.Callback revoked = old.find("revoked", oldToken).orElseThrow();
        Candidate.Callback elected = next.find("elected", nextToken).orElseThrow();
        assertThat(revoked.reason()).isEqualTo(reason);
        assertThat(elected.start() - revoked.end())
                .as("from the end of %s's onRevoked to the start of %s's onElected, ns", old.id, next.id)
                .isPositive();
    }

    /** A client of the backend that can be cut off from it: every call but the wake-ups then fails. */
    private static final class Partitionable extends ForwardingLockProvider {
        final AtomicBoolean cut = new AtomicBoolean();

        Partitionable(LockProvider delegate) {
            super(delegate);
        }

        private void check(String name) {
            if (cut.get()) {
                throw new BackendUnavailableException(name, "cut off from the backend by the kit", null);
            }
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            check(request.name());
            return super.tryAcquire(request);
        }

        @Override
        public Release release(String name, String owner) {
            check(name);
            return super.release(name, owner);
        }

        @Override
        public List<Renewal> renew(List<Renewal> renewals) {
            check(renewals.isEmpty() ? "" : renewals.get(0).name());
            return super.renew(renewals);
        }

        @Override
        public void abandon(String name, String owner, long waitId) {
            check(name);
            super.abandon(name, owner, waitId);
        }
    }

    @Test
    @DisplayName(
            "a leader cut off from the backend is told (onRevoked and lost() done) before another instance is elected, within lease + wake-up")
    void cutOffLeaderIsToldBeforeAnotherIsElected() throws Exception {
        String name = name();
        Partitionable partitionable = new Partitionable(provider());
        Candidate a = candidate("A", clientOver(partitionable), name);
        Candidate b = candidate("B", client(), name);
        a.leadership.start();
        Term term = a.leadership.awaitTerm(scaled(Duration.ofSeconds(10))).orElseThrow();
        CompletableFuture<Long> lostAt = term.lost().toCompletableFuture().thenApply(r -> System.nanoTime());
        b.leadership.start();
        await("A leading through a lease of renewals, with B campaigning")
                .during(lease())
                .atMost(lease().multipliedBy(2))
                .until(() -> a.leadership.isLeader() && !b.leadership.isLeader());

        long cutAt = System.nanoTime();
        partitionable.cut.set(true);
        try {
            Term next = b.leadership
                    .awaitTerm(lease().plus(wakeUpAllowance()))
                    .orElseThrow(() -> new AssertionError("B not elected within lease + wake-up after A was cut off"));
            RevocationReason atElection = term.revocation().orElse(null);
            await("B's onElected recorded")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> b.find("elected", next.fencingToken()).isPresent());
            long electedAt =
                    b.find("elected", next.fencingToken()).orElseThrow().start();
            assertThat(atElection)
                    .as("A's term when B was elected (A must have been told first, not lead beside B)")
                    .isEqualTo(RevocationReason.LEASE_EXPIRED);
            Candidate.Callback revoked = a.find("revoked", term.fencingToken())
                    .orElseThrow(() -> new AssertionError("A's onRevoked had not run when B was elected: " + a));
            assertThat(electedAt - revoked.end())
                    .as("from the end of A's onRevoked to B's election, ns")
                    .isPositive();
            assertThat(electedAt - lostAt.getNow(Long.MAX_VALUE))
                    .as("from A's term.lost() to B's election, ns")
                    .isPositive();
            assertThat(next.fencingToken()).isGreaterThan(term.fencingToken());
            assertThat(TimeUnit.NANOSECONDS.toMillis(electedAt - cutAt))
                    .as("ms from the cut to the next election")
                    .isLessThanOrEqualTo(lease().plus(wakeUpAllowance()).toMillis());
        } finally {
            partitionable.cut.set(false);
        }
    }

    @Test
    @DisplayName(
            "a leader whose hold the backend no longer has (force release) is told at its next renewal; the next term is larger")
    void leaderOfALostHoldIsToldAtItsNextRenewal() throws Exception {
        assumeTrue(has(Capability.FORCE_RELEASE), "the provider cannot force-release");
        String name = name();
        Candidate a = candidate("A", client(), name);
        a.leadership.start();
        Term term = a.leadership.awaitTerm(scaled(Duration.ofSeconds(10))).orElseThrow();
        Candidate b = candidate("B", client(), name);
        b.leadership.start();
        long released = System.nanoTime();
        assertThat(client().forceRelease(name))
                .as("force release of the leader's lock")
                .isTrue();
        RevocationReason reason = term.lost()
                .toCompletableFuture()
                .get(lease().plus(wakeUpAllowance()).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(reason).isEqualTo(RevocationReason.NOT_HELD);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released))
                .as("ms from the force release to the leader being told (renewal every lease/3)")
                .isLessThanOrEqualTo(lease().dividedBy(3)
                        .plus(scaled(Duration.ofMillis(700)))
                        .toMillis());
        List<Candidate> both = List.of(a, b);
        Candidate next = awaitOneLeader(both, lease().plus(wakeUpAllowance()), "a leader after the loss");
        assertThat(next.leadership.currentTerm().orElseThrow().fencingToken()).isGreaterThan(term.fencingToken());
    }

    @Test
    @DisplayName("terms strictly increase across 12 hand-overs among 3 instances, and never two lead at once")
    void termsStrictlyIncrease() {
        String name = name();
        List<Candidate> all =
                List.of(candidate("A", client(), name), candidate("B", client(), name), candidate("C", client(), name));
        LeaderSampler sampler = new LeaderSampler(all);
        all.forEach(c -> c.leadership.start());
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            Candidate leader = awaitOneLeader(all, lease().plus(wakeUpAllowance()), "leader " + (i + 1));
            Optional<Term> t = leader.leadership.currentTerm();
            if (t.isEmpty()) {
                i--; // its term ended between the two looks: look again
                continue;
            }
            tokens.add(t.get().fencingToken());
            leader.leadership.stepDown();
        }
        assertThat(tokens).as("the terms in order").isSorted().doesNotHaveDuplicates();
        List<Long> elected = all.stream()
                .flatMap(c -> c.records.stream())
                .filter(r -> r.kind().equals("elected"))
                .sorted(java.util.Comparator.comparingLong(Candidate.Callback::start))
                .map(Candidate.Callback::token)
                .collect(Collectors.toList());
        assertThat(elected)
                .as("every term in the order its onElected ran")
                .isSorted()
                .doesNotHaveDuplicates();
        sampler.assertNeverTwo();
    }

    @Test
    @ResourceLock(value = ContractGroup.BACKEND, mode = ResourceAccessMode.READ_WRITE) // stops the backend
    @DisplayName(
            "in an outage the term ends by its lease, nobody is elected while the backend is down, and someone leads once it is back")
    void outageEndsTheTermAndTheCampaignResumes() throws Exception {
        Optional<BackendControl> control = kit.backendControl();
        assumeTrue(control.isPresent(), "the test class cannot stop its backend (its backendControl() is empty)");
        BackendControl backend = control.get();
        String name = name();
        List<Candidate> all = List.of(
                candidate("A", client(), name, o -> o.maxRetryDelay(scaled(Duration.ofMillis(500)))),
                candidate("B", client(), name, o -> o.maxRetryDelay(scaled(Duration.ofMillis(500)))));
        all.forEach(c -> c.leadership.start());
        Candidate leader = awaitOneLeader(all, scaled(Duration.ofSeconds(10)), "a leader");
        Term term = leader.leadership.currentTerm().orElseThrow();
        long stopped = System.nanoTime();
        backend.stop();
        boolean started = false;
        try {
            RevocationReason reason = term.lost()
                    .toCompletableFuture()
                    .get(lease().plus(wakeUpAllowance()).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(reason).isEqualTo(RevocationReason.LEASE_EXPIRED);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped))
                    .as("ms from the outage to the revocation")
                    .isLessThanOrEqualTo(
                            lease().plus(scaled(Duration.ofMillis(250))).toMillis());
            await("nobody leads while the backend is down")
                    .during(lease())
                    .atMost(lease().multipliedBy(2))
                    .until(() -> leaders(all).isEmpty());
            backend.start();
            started = true;
            // Timed from the backend's answering again: how long its own restart takes (seconds, for a
            // database under load) is not the campaign's to answer for.
            long back = System.nanoTime();
            Candidate next = awaitOneLeader(all, lease().plus(wakeUpAllowance()), "a leader once the backend is back");
            assertThat(next.leadership.currentTerm().orElseThrow().fencingToken())
                    .isGreaterThan(term.fencingToken());
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back))
                    .as("ms from the backend's return to the next election")
                    .isLessThanOrEqualTo(lease().plus(wakeUpAllowance()).toMillis());
        } finally {
            if (!started) {
                backend.start();
            }
        }
    }
}
