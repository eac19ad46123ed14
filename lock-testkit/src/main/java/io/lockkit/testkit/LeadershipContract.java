package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.Leadership.RevocationReason;
import io.lockkit.LeadershipOptions;
import io.lockkit.Term;
import io.lockkit.spi.LockProvider.Capability;
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
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * "Leadership" ({@link LockContractTest.Leadership}): {@link Leadership} over the provider under
 * test. Several clients campaign for one name
 * as separate processes would; exactly one leads; a step down or a close hands over at once, after
 * the old leader's {@code onRevoked}; a leader that cannot renew is told before anyone else is
 * elected; a leader whose hold the backend lost is told at its next renewal; a term's
 * {@code lost()} completes before its {@code onRevoked} starts, whatever ended it; terms strictly
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

    private LeadershipCandidate candidate(String id, DistributedLockFactory client, String name) {
        return new LeadershipCandidate(id, client, name, options());
    }

    private LeadershipCandidate candidate(
            String id, DistributedLockFactory client, String name, UnaryOperator<LeadershipOptions.Builder> change) {
        return new LeadershipCandidate(id, client, name, change.apply(options()));
    }

    /** Waits until exactly one of {@code all} leads, and returns it. */
    private LeadershipCandidate awaitOneLeader(List<LeadershipCandidate> all, Duration bound, String what) {
        await(what)
                .atMost(bound)
                .pollInterval(Duration.ofMillis(10))
                .until(() -> leaders(all).size() == 1);
        return leaders(all).get(0);
    }

    private static List<LeadershipCandidate> leaders(List<LeadershipCandidate> all) {
        return all.stream().filter(c -> c.leadership.isLeader()).collect(Collectors.toList());
    }

    /** Samples how many of {@code all} lead at once, every millisecond, on a kit thread, until stopped. */
    private final class LeaderSampler {
        final AtomicInteger most = new AtomicInteger();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<String> seen = new CopyOnWriteArrayList<>();

        LeaderSampler(List<LeadershipCandidate> all) {
            start("leader-sampler", () -> {
                while (!stop.get()) {
                    List<LeadershipCandidate> now = leaders(all);
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
        List<LeadershipCandidate> all =
                List.of(candidate("A", client(), name), candidate("B", client(), name), candidate("C", client(), name));
        LeaderSampler sampler = new LeaderSampler(all);
        all.forEach(c -> c.leadership.start());
        LeadershipCandidate leader = awaitOneLeader(all, scaled(Duration.ofSeconds(10)), "one leader");
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
        List<LeadershipCandidate> all = List.of(
                candidate("A", client(), name, o -> o.lease(longLease).rejoinDelay(longLease)),
                candidate("B", client(), name, o -> o.lease(longLease).rejoinDelay(longLease)),
                candidate("C", client(), name, o -> o.lease(longLease).rejoinDelay(longLease)));
        LeaderSampler sampler = new LeaderSampler(all);
        all.forEach(c -> c.leadership.start());
        LeadershipCandidate first = awaitOneLeader(all, scaled(Duration.ofSeconds(10)), "the first leader");
        long firstToken = first.leadership.currentTerm().orElseThrow().fencingToken();

        first.leadership.stepDown();
        LeadershipCandidate second = awaitOneLeader(all, wakeUpAllowance(), "a leader after the step down");
        long secondToken = second.leadership.currentTerm().orElseThrow().fencingToken();
        assertThat(second).as("the next leader").isNotSameAs(first);
        assertThat(secondToken).isGreaterThan(firstToken);
        assertToldBeforeElected(first, firstToken, second, secondToken, RevocationReason.STEPPED_DOWN);

        second.leadership.close();
        List<LeadershipCandidate> others = List.of(
                all.stream().filter(c -> c != first && c != second).findFirst().orElseThrow());
        LeadershipCandidate third = awaitOneLeader(others, wakeUpAllowance(), "a leader after the close");
        long thirdToken = third.leadership.currentTerm().orElseThrow().fencingToken();
        assertThat(thirdToken).isGreaterThan(secondToken);
        assertToldBeforeElected(second, secondToken, third, thirdToken, RevocationReason.CLOSED);
        sampler.assertNeverTwo();
    }

    /** {@code old}'s onRevoked for {@code oldToken} ended before {@code next}'s onElected for {@code nextToken} began. */
    private static void assertToldBeforeElected(
            LeadershipCandidate old, long oldToken, LeadershipCandidate next, long nextToken, RevocationReason reason) {
        await("the callbacks recorded")
                .atMost(Duration.ofSeconds(10))
                .until(() -> old.find("revoked", oldToken).isPresent()
                        && next.find("elected", nextToken).isPresent());
        LeadershipCandidate.Callback revoked = old.find("revoked", oldToken).orElseThrow();
        LeadershipCandidate.Callback elected = next.find("elected", nextToken).orElseThrow();
        assertThat(revoked.reason()).isEqualTo(reason);
        assertThat(elected.start() - revoked.end())
                .as("from the end of %s's onRevoked to the start of %s's onElected, ns", old.id, next.id)
                .isPositive();
    }

    @Test
    @DisplayName(
            "a leader cut off from the backend is told (onRevoked and lost() done) before another instance is elected, within lease + wake-up")
    void cutOffLeaderIsToldBeforeAnotherIsElected() throws Exception {
        String name = name();
        PartitionableProvider partitionable = new PartitionableProvider(provider());
        LeadershipCandidate a = candidate("A", clientOver(partitionable), name);
        LeadershipCandidate b = candidate("B", client(), name);
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
            LeadershipCandidate.Callback revoked = a.find("revoked", term.fencingToken())
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
        LeadershipCandidate a = candidate("A", client(), name);
        a.leadership.start();
        Term term = a.leadership.awaitTerm(scaled(Duration.ofSeconds(10))).orElseThrow();
        LeadershipCandidate b = candidate("B", client(), name);
        b.leadership.start();
        long released = System.nanoTime();
        assertThat(client().operations().forceRelease(name))
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
        List<LeadershipCandidate> both = List.of(a, b);
        LeadershipCandidate next = awaitOneLeader(both, lease().plus(wakeUpAllowance()), "a leader after the loss");
        assertThat(next.leadership.currentTerm().orElseThrow().fencingToken()).isGreaterThan(term.fencingToken());
    }

    @Test
    @DisplayName(
            "a term's lost() completes, its dependents returned, before its onRevoked starts: on step downs, a lease run out, force releases and close")
    void lostCompletesBeforeOnRevoked() throws Exception {
        String name = name();
        // Each term's lost() dependent takes this long unless onRevoked starts meanwhile, which
        // gives an onRevoked that does not wait for lost() the time to show itself.
        Duration slowLost = scaled(Duration.ofMillis(500));
        Duration bound = scaled(Duration.ofSeconds(10)).plus(slowLost);
        PartitionableProvider partitionable = new PartitionableProvider(provider());
        DistributedLockFactory own = clientOver(partitionable);
        LeadershipCandidate a = new LeadershipCandidate(
                "A", own, name, options().maxRetryDelay(scaled(Duration.ofMillis(200))), slowLost);
        a.leadership.start();
        for (int i = 0; i < 4; i++) {
            Term led = announced(a, bound);
            a.leadership.stepDown(); // revoked on this thread (unless its lease ran out first, on a loaded machine)
            assertThat(led.revocation()).isPresent();
        }
        Term cut = announced(a, bound);
        partitionable.cut.set(true); // revoked on the factory's scheduler, when the lease runs out
        try {
            assertThat(cut.lost().toCompletableFuture().get(bound.toMillis(), TimeUnit.MILLISECONDS))
                    .isEqualTo(RevocationReason.LEASE_EXPIRED);
        } finally {
            partitionable.cut.set(false);
        }
        if (has(Capability.FORCE_RELEASE)) {
            Term forced = announced(a, bound);
            assertThat(own.operations().forceRelease(name)).isTrue(); // revoked on this thread
            assertThat(forced.revocation()).isPresent();
            Term gone = announced(a, bound);
            assertThat(client().operations().forceRelease(name)).isTrue(); // revoked at the leader's next renewal
            assertThat(gone.lost().toCompletableFuture().get(bound.toMillis(), TimeUnit.MILLISECONDS))
                    .as("a loss found by a renewal; its lease may run out first on a loaded machine")
                    .isIn(RevocationReason.NOT_HELD, RevocationReason.LEASE_EXPIRED);
        }
        Term last = announced(a, bound);
        a.leadership.close(); // revoked on this thread; returns once onRevoked has run
        assertThat(last.revocation()).isPresent();

        assertLostBeforeOnRevoked(a, bound);
    }

    /**
     * Every term {@code a} was elected for had its onRevoked start only after its slow lost()
     * dependent returned; and the terms ended for a step down and for a lease that ran out, at least.
     */
    private static void assertLostBeforeOnRevoked(LeadershipCandidate a, Duration bound) {
        List<Long> terms = a.electedTokens();
        await("every term's lost() dependent and onRevoked recorded")
                .atMost(bound)
                .until(() -> terms.stream()
                        .allMatch(t -> a.find("lost", t).isPresent()
                                && a.find("revoked", t).isPresent()));
        List<String> broken = new ArrayList<>();
        for (long t : terms) {
            LeadershipCandidate.Callback lost = a.find("lost", t).orElseThrow();
            LeadershipCandidate.Callback revoked = a.find("revoked", t).orElseThrow();
            if (revoked.start() - lost.end() <= 0) {
                broken.add("term " + t + " (" + revoked.reason() + "): onRevoked started "
                        + TimeUnit.NANOSECONDS.toMicros(lost.end() - revoked.start())
                        + " us before its lost() dependent returned");
            }
        }
        assertThat(broken)
                .as("terms whose onRevoked did not wait for lost(), of %s", terms)
                .isEmpty();
        assertThat(terms.stream().map(t -> a.find("revoked", t).orElseThrow().reason()))
                .as("the reasons the terms ended for")
                .contains(RevocationReason.STEPPED_DOWN, RevocationReason.LEASE_EXPIRED);
    }

    /** The term {@code c} leads in once its onElected has run (so that its lost() has its dependents), within {@code bound}. */
    private static Term announced(LeadershipCandidate c, Duration bound) throws InterruptedException {
        Term t = c.leadership.awaitTerm(bound).orElseThrow(() -> new AssertionError(c.id + " not elected"));
        await(c.id + "'s onElected for term " + t.fencingToken())
                .atMost(bound)
                .until(() -> c.find("elected", t.fencingToken()).isPresent());
        return t;
    }

    @Test
    @DisplayName("terms strictly increase across 12 hand-overs among 3 instances, and never two lead at once")
    void termsStrictlyIncrease() {
        String name = name();
        List<LeadershipCandidate> all =
                List.of(candidate("A", client(), name), candidate("B", client(), name), candidate("C", client(), name));
        LeaderSampler sampler = new LeaderSampler(all);
        all.forEach(c -> c.leadership.start());
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            LeadershipCandidate leader = awaitOneLeader(all, lease().plus(wakeUpAllowance()), "leader " + (i + 1));
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
                .sorted(java.util.Comparator.comparingLong(LeadershipCandidate.Callback::start))
                .map(LeadershipCandidate.Callback::token)
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
        List<LeadershipCandidate> all = List.of(
                candidate("A", client(), name, o -> o.maxRetryDelay(scaled(Duration.ofMillis(500)))),
                candidate("B", client(), name, o -> o.maxRetryDelay(scaled(Duration.ofMillis(500)))));
        all.forEach(c -> c.leadership.start());
        LeadershipCandidate leader = awaitOneLeader(all, scaled(Duration.ofSeconds(10)), "a leader");
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
            LeadershipCandidate next =
                    awaitOneLeader(all, lease().plus(wakeUpAllowance()), "a leader once the backend is back");
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
