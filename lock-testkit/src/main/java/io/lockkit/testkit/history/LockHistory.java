package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockLostException;
import io.lockkit.testkit.history.HoldHistory.Hold;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The multi-client history check, for any provider: several clients (separate factories over
 * separate providers, as separate processes would be) with several threads each take one lock
 * over and over, while a fault thread injects the provider's faults in turn; every hold is
 * recorded and {@link HoldHistory} checks mutual exclusion among clean holds and the order of
 * tokens in time.
 *
 * <pre>{@code
 * LockHistory.Result r = LockHistory.builder()
 *         .clients(4, lossListener -> DistributedLockFactory.builder(newProvider())
 *                 .defaultOptions(LockOptions.builder().watchdogLease(lease).build())
 *                 .onLockLost(lossListener).build())
 *         .fault("restart", true, server::restart)
 *         .fault("connections killed", false, () -> killConnections())
 *         .build().run();
 * r.assertSafe();
 * }</pre>
 *
 * <p>Half the threads of a client hold {@link io.lockkit.LockHandle}s, half hold the lock as threads
 * ({@link io.lockkit.DistributedLock}); now and then (1 in 400) a critical section is long (150–300 ms), so
 * that faults also meet holds midway, and faults marked {@code duringLongHold} wait (up to 3 s)
 * for the start of one: a fault that frees the lock under its holder (a restart that loses data,
 * a deleted row or key) then hits the case fencing is for. Acquisition failures
 * ({@link LockException}) are counted and retried, as an application would.
 *
 * <p>Not thread-safe to configure; {@link #run()} may be called once. The clients' factories are
 * closed when the run ends.
 */
// Design notes.
// - Moved from lock-jedis' fault tests unchanged in substance (clients, the long critical sections
//   faults aim at, what is recorded); what is provider-specific (which faults, how a client is made,
//   the lease) is the caller's. The clients (HistoryClients), the fault thread (HistoryFaults) and
//   the threads (HistoryThreads) are apart; this class configures and runs them, Result asserts.
// - The run asserts nothing about safety itself: Result.assertSafe() and
//   assertNoOverlapOfValidHolds() do, so a test can also show that a broken provider fails them.
public final class LockHistory {

    /**
     * Makes one client's factory; the run passes the listener the factory must report losses to
     * ({@link DistributedLockFactory.Builder#onLockLost}).
     */
    @FunctionalInterface
    public interface ClientFactory {
        DistributedLockFactory create(Consumer<LockLostException> lossListener) throws Exception;
    }

    /** A fault's action, run on the fault thread; it returns when the fault is over (or in place). */
    @FunctionalInterface
    public interface FaultAction {
        void inject() throws Exception;
    }

    /** A named fault; {@code duringLongHold}: injected at the start of a long critical section. */
    public record Fault(String name, boolean duringLongHold, FaultAction action) {
        public Fault {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank");
            }
            Objects.requireNonNull(action, "action");
        }
    }

    private final int clients;
    private final int threadsPerClient;
    private final ClientFactory clientFactory;
    private final String lockName;
    private final List<Fault> faults;
    private final FaultAction cleanUp;
    private final int minAcquisitions;
    private final int minRoundsOfFaults;
    private final Duration maxRun;

    private final HistoryClients clientSide;
    private final HistoryFaults faultSide;
    private final HistoryThreads threads = new HistoryThreads();
    private long startedAt;
    private boolean ran;

    private LockHistory(Builder b) {
        this.clients = b.clients;
        this.threadsPerClient = b.threadsPerClient;
        this.clientFactory = Objects.requireNonNull(b.clientFactory, "clientFactory"); // build() checked it
        this.lockName = b.lockName;
        this.faults = List.copyOf(b.faults);
        this.cleanUp = b.cleanUp;
        this.minAcquisitions = b.minAcquisitions;
        this.minRoundsOfFaults = b.minRoundsOfFaults;
        this.maxRun = b.maxRun;
        this.clientSide = new HistoryClients(lockName, b.wait);
        this.faultSide = new HistoryFaults(faults, b.faultSpacing);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Runs until at least {@code minAcquisitions} holds were recorded and every fault was injected
     * {@code minRoundsOfFaults} times, or {@code maxRun} passed, and returns what was recorded. The
     * assertions are the caller's ({@link Result#assertSafe()}).
     *
     * @throws AssertionError when a client thread or the fault thread failed, or a thread did not stop
     */
    public Result run() throws Exception {
        if (ran) {
            throw new IllegalStateException("a LockHistory runs once");
        }
        ran = true;
        List<DistributedLockFactory> factories = new ArrayList<>();
        long start = System.nanoTime();
        startedAt = start;
        try {
            for (int c = 0; c < clients; c++) {
                DistributedLockFactory client = clientFactory.create(clientSide::lossHeard);
                factories.add(client);
                int id = c;
                for (int t = 0; t < threadsPerClient; t++) {
                    boolean handles = t % 2 == 0;
                    threads.start(
                            "history-client-" + c + "-" + t,
                            () -> clientSide.contend(id, client, handles, threads::stopped));
                }
            }
            if (!faultSide.isEmpty()) {
                threads.start("history-faults", () -> faultSide.inject(clientSide::longHolds, threads::stopped));
            }
            while (!enough() && System.nanoTime() - start < maxRun.toNanos() && threads.failure() == null) {
                Thread.sleep(100);
            }
            threads.stop();
            if (!threads.join(Duration.ofSeconds(30))) {
                throw new AssertionError("history threads did not stop within 30 s: " + threads.alive());
            }
            Throwable e = threads.failure();
            if (e != null) {
                throw new AssertionError(
                        "a client or the fault injector failed (faults so far " + faultSide.counts() + ")", e);
            }
        } finally {
            threads.stop();
            if (!threads.join(Duration.ZERO)) {
                threads.interrupt();
                threads.join(Duration.ofSeconds(5));
            }
            try {
                cleanUp.inject();
            } finally {
                for (DistributedLockFactory f : factories) {
                    f.close();
                }
            }
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return new Result(this, clientSide.holds(), clientSide.lossHeardAt(), faultSide.counts(), millis);
    }

    private boolean enough() {
        return clientSide.acquisitions() >= minAcquisitions && faultSide.injectedAtLeast(minRoundsOfFaults);
    }

    /** What a run recorded. Immutable. */
    public static final class Result {
        private final LockHistory run;
        private final List<Hold> holds;
        private final Map<Long, Long> lossHeardAt;
        private final Map<String, Integer> faults;
        private final long runMillis;
        private final HoldHistory.Report report;

        private Result(
                LockHistory run,
                List<Hold> holds,
                Map<Long, Long> lossHeardAt,
                Map<String, Integer> faults,
                long runMillis) {
            this.run = run;
            this.holds = holds;
            this.lossHeardAt = lossHeardAt;
            this.faults = faults;
            this.runMillis = runMillis;
            this.report = HoldHistory.check(holds, lossHeardAt);
        }

        /** Every hold recorded, in no particular order. */
        public List<Hold> holds() {
            return holds;
        }

        /** Token → when its client's loss listener heard of its loss ({@link System#nanoTime()}). */
        public Map<Long, Long> lossHeardAt() {
            return lossHeardAt;
        }

        /** How often each fault was injected, by name. */
        public Map<String, Integer> faults() {
            return faults;
        }

        /** How long the run took. */
        public long runMillis() {
            return runMillis;
        }

        /** Acquisitions that failed with a {@link LockException} other than a timeout. */
        public int acquireFailures() {
            return run.clientSide.acquireFailures();
        }

        /** Acquisitions that timed out. */
        public int acquireTimeouts() {
            return run.clientSide.acquireTimeouts();
        }

        /** The checker's report. */
        public HoldHistory.Report report() {
            return report;
        }

        /** {@link HoldHistory#overlapsOfValidHolds}: empty where only expired leases free a lock. */
        public List<String> overlapsOfValidHolds() {
            return HoldHistory.overlapsOfValidHolds(holds, lossHeardAt);
        }

        /** Three lines on what happened, for the test's output. */
        public String summary() {
            long[] perClient = perClient();
            HoldHistory.Report r = report;
            return String.format(
                    "history: %d acquisitions in %.1f s (%.0f/s) by %d clients x %d threads, per client %s%n"
                            + "history: faults injected %s%n"
                            + "history: %d clean holds; lost: %d told by listener, %d told at release, %d invalid at the end"
                            + " of the critical section, %d never valid; %d releases failed; acquisitions that timed out %d,"
                            + " failed %d%n"
                            + "history: overlaps among clean holds %d; overlaps involving a lost hold %d (later start with the"
                            + " smaller token: %d); clean holds not above an earlier-ended token %d; stale lost holders %d;"
                            + " duplicate tokens %d; max token gap %d",
                    holds.size(),
                    runMillis / 1000.0,
                    holds.size() * 1000.0 / Math.max(1, runMillis),
                    run.clients,
                    run.threadsPerClient,
                    Arrays.toString(perClient),
                    faults,
                    r.clean(),
                    r.lostHeard(),
                    r.lostAtRelease(),
                    r.invalidAtEnd(),
                    r.neverValid(),
                    r.releaseFailed(),
                    acquireTimeouts(),
                    acquireFailures(),
                    r.cleanOverlaps().size(),
                    r.overlapsWithLost(),
                    r.overlapsWithLostInverted(),
                    r.fencingViolations().size(),
                    r.staleHolders(),
                    r.duplicateTokens().size(),
                    r.maxTokenGap());
        }

        /** The holds with these tokens and the faults near them (see {@link HistoryViolations#describe}). */
        private String describe(List<Long> tokens) {
            return HistoryViolations.describe(holds, tokens, lossHeardAt, run.clientSide, run.faultSide, run.startedAt);
        }

        /** Fails with the violations, the holds they name and the faults near those holds, if any. */
        private void assertNone(List<String> violations, String what) {
            if (!violations.isEmpty()) {
                assertThat(violations)
                        .as(
                                "%s; the holds concerned and the faults near them:%n%s",
                                what, describe(HistoryViolations.tokensIn(violations)))
                        .isEmpty();
            }
        }

        private long[] perClient() {
            long[] perClient = new long[run.clients];
            holds.forEach(h -> perClient[h.client()]++);
            return perClient;
        }

        /**
         * Asserts the run was long enough (every client acquired, the minimum of holds and of
         * rounds of every fault) and safe: no duplicate token, no overlapping clean holds, clean
         * tokens increasing in start order, no clean hold's token at or below an earlier-ended one.
         */
        public Result assertSafe() {
            assertThat(holds.size()).as("acquisitions").isGreaterThanOrEqualTo(run.minAcquisitions);
            assertThat(Arrays.stream(perClient()).min().orElse(0))
                    .as("acquisitions of the least busy client")
                    .isPositive();
            assertThat(faults.values())
                    .as("rounds of every fault " + faults)
                    .allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(run.minRoundsOfFaults));
            assertThat(report.duplicateTokens())
                    .as(
                            "duplicate tokens; the holds concerned and the faults near them:%n%s",
                            describe(report.duplicateTokens()))
                    .isEmpty();
            assertThat(report.cleanOverlaps()).as("overlapping clean holds").isEmpty();
            assertNone(report.cleanTokenInversions(), "clean holds whose token did not increase in start order");
            assertNone(report.fencingViolations(), "clean holds whose token was not above an earlier-ended hold's");
            return this;
        }

        /**
         * Asserts no two holds overlap that their holders found valid at the end of their critical
         * sections: for runs whose faults free a lock only by an expired lease (stalls, lost
         * connections), not by losing data (restarts without persistence, deleted rows or keys).
         */
        public Result assertNoOverlapOfValidHolds() {
            assertThat(overlapsOfValidHolds())
                    .as("holds valid at the end of their critical sections that overlap")
                    .isEmpty();
            return this;
        }
    }

    /** Options of a run; every setter validates its argument. Not thread-safe. */
    public static final class Builder {
        private int clients = 4;
        private int threadsPerClient = 4;
        private @Nullable ClientFactory clientFactory;
        private String lockName =
                "history:" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        private final List<Fault> faults = new ArrayList<>();
        private FaultAction cleanUp = () -> {};
        private int minAcquisitions = 10_000;
        private int minRoundsOfFaults = 2;
        private Duration maxRun = Duration.ofSeconds(80);
        private Duration wait = Duration.ofSeconds(2);
        private Duration faultSpacing = Duration.ofMillis(1200);

        private Builder() {}

        /** How many clients, each a factory made by {@code factory}. Required. */
        public Builder clients(int clients, ClientFactory factory) {
            if (clients < 1 || clients > 64) {
                throw new IllegalArgumentException("clients must be in 1..64, was " + clients);
            }
            this.clients = clients;
            this.clientFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /** Threads per client. Default 4. */
        public Builder threadsPerClient(int threads) {
            if (threads < 1 || threads > 64) {
                throw new IllegalArgumentException("threadsPerClient must be in 1..64, was " + threads);
            }
            this.threadsPerClient = threads;
            return this;
        }

        /** The lock's name. Default: a random name starting with {@code history:}. */
        public Builder lockName(String name) {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("lockName must not be null or empty");
            }
            this.lockName = name;
            return this;
        }

        /** Adds a fault; faults are injected in the order added, round after round. */
        public Builder fault(String name, boolean duringLongHold, FaultAction action) {
            Fault f = new Fault(name, duringLongHold, action);
            if (faults.stream().anyMatch(x -> x.name().equals(name))) {
                throw new IllegalArgumentException("name '" + name + "' is taken by another fault");
            }
            faults.add(f);
            return this;
        }

        /** Run once the run ends, before the clients close, e.g. to resume a stopped server. */
        public Builder cleanUp(FaultAction cleanUp) {
            this.cleanUp = Objects.requireNonNull(cleanUp, "cleanUp");
            return this;
        }

        /** The run lasts until at least this many holds are recorded. Default 10,000. */
        public Builder minAcquisitions(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("minAcquisitions must be positive, was " + n);
            }
            this.minAcquisitions = n;
            return this;
        }

        /** ... and every fault was injected this often. Default 2. */
        public Builder minRoundsOfFaults(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("minRoundsOfFaults must not be negative, was " + n);
            }
            this.minRoundsOfFaults = n;
            return this;
        }

        /** ... or this long passed. Default 80 s. */
        public Builder maxRun(Duration maxRun) {
            this.maxRun = positive(maxRun, "maxRun");
            return this;
        }

        /** How long an acquisition waits. Default 2 s. */
        public Builder waitAtMost(Duration wait) {
            this.wait = positive(wait, "wait");
            return this;
        }

        /** The pause after each fault. Default 1.2 s. */
        public Builder faultSpacing(Duration spacing) {
            this.faultSpacing = positive(spacing, "faultSpacing");
            return this;
        }

        public LockHistory build() {
            if (clientFactory == null) {
                throw new IllegalArgumentException("clients(n, factory) must be set");
            }
            return new LockHistory(this);
        }

        private static Duration positive(Duration d, String argument) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(argument + " must be positive, was " + d);
            }
            return d;
        }
    }
}
