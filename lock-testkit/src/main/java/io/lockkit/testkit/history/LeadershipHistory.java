package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.testkit.history.TermHistory.Fault;
import io.lockkit.testkit.history.TermHistory.Outage;
import io.lockkit.testkit.history.TermHistory.Report;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The multi-process leadership history check, for any provider: several worker JVMs
 * ({@link LeaderWorker}) campaign for one name on a real backend while faults hit, each fault in
 * turn, round after round: the leader's JVM paused past its lease (SIGSTOP, then SIGCONT), the
 * leader's JVM killed ({@code kill -9}, and a new worker started in its place), and the backend
 * faults the caller names (a restart, a stall past the lease). Every worker reports its terms, its
 * work stamps and its callbacks; {@link TermHistory} then checks that no two terms worked at once,
 * that terms strictly increase, that every deposed leader was told before the next term began (its
 * {@code onRevoked} only after its term's {@code lost()}), and that a leader worked again within
 * lease + wake-up time after each fault.
 *
 * <pre>{@code
 * LeadershipHistory.Result r = LeadershipHistory.builder()
 *         .provider(MyWorkerProviders.class, backendAddress)   // a Function<String, LockProvider>
 *         .lease(Duration.ofSeconds(2))
 *         .backendFault("backend restarted", server::restart)
 *         .build()
 *         .run();
 * r.assertSafe();
 * }</pre>
 *
 * <p>The workers run {@code java} of this JVM with this JVM's class path, so the provider class and
 * its dependencies must be on it (a test class path is). Times are {@link System#nanoTime()},
 * which every process of one host shares (Linux: {@code CLOCK_MONOTONIC}). Signals are sent with
 * {@code kill}, so this runs where there is one (Linux, macOS), to processes it started only. The
 * number of rounds is the builder's, or the system property {@value #ROUNDS_PROPERTY} for longer
 * soaks. Not thread-safe to configure; {@link #run()} may be called once.
 */
// Design notes.
// - Faults are injected one at a time, each aimed at whichever worker leads then, and the run moves
//   on once a leader works again (or the bound plus a slack has passed: the checker then reports the
//   slow election), after a short steady period, so every fault meets a system that had recovered.
// - Outages of processes (pauses, kills) are recorded as the driver caused them; the checker
//   exempts a leader from being told in time only while its process did not run.
// - Reading: one thread per worker parses its output; protocol lines go to the history, others
//   (logs) to a short tail kept for the failure message.
public final class LeadershipHistory {

    /** System property: the number of rounds of faults, for longer soaks than the builder's. */
    public static final String ROUNDS_PROPERTY = "lockkit.leadership.history.rounds";

    private static final System.Logger LOG = System.getLogger(LeadershipHistory.class.getName());
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    /** Time with a working leader before the next fault, so each fault meets a recovered system. */
    private static final Duration STEADY = Duration.ofMillis(800);

    private final int workers;
    private final String address;
    private final Map<String, String> workerArguments;
    private final Duration lease;
    private final Duration wakeUp;
    private final int rounds;
    private final boolean leaderFaults;
    private final List<WorkerHistoryBuilder.NamedFault> backendFaults;
    private final List<String> jvmOptions;
    private final Runnable cleanUp;

    private final List<LeadershipWorkerProcess> all = new CopyOnWriteArrayList<>();
    private final List<Outage> outages = new CopyOnWriteArrayList<>();
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private boolean ran;

    private LeadershipHistory(Builder b) {
        this.workers = b.workers;
        this.address = b.address();
        this.workerArguments = b.workerArguments();
        workerArguments.put("mode", b.naive ? "naive" : "leadership");
        this.lease = b.lease();
        this.wakeUp = b.wakeUp;
        this.rounds = Integer.getInteger(ROUNDS_PROPERTY, b.rounds);
        this.leaderFaults = b.leaderFaults;
        this.backendFaults = b.backendFaults();
        this.jvmOptions = b.jvmOptions();
        this.cleanUp = b.cleanUpAction();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** What a run recorded and what the checker found. */
    public record Result(
            Report report, List<TermHistory.Term> terms, List<Fault> faults, List<Outage> outages, String workerLogs) {

        /** Fails with every violation, the summary and the workers' last log lines, unless the history passes. */
        public void assertSafe() {
            assertThat(report.passes())
                    .as(
                            "leadership history violations:%n%s%n%s%nworker logs:%n%s",
                            report.violations(), summary(), workerLogs)
                    .isTrue();
        }

        /** Counts and election times, for a log line. */
        public String summary() {
            return "leadership history: " + report.terms() + " terms, " + report.workStamps() + " work stamps; "
                    + faults.size() + " faults " + report.electionMillis() + " (ms from each fault's anchor to a"
                    + " working leader); overlaps " + report.overlaps().size() + " (with a hold the backend lost "
                    + report.lostHoldOverlaps() + "), token-order violations "
                    + report.tokenOrder().size()
                    + ", told late " + report.toldLate().size() + ", onRevoked before lost() "
                    + report.revokedBeforeLost().size() + ", slow elections "
                    + report.slowElections().size();
        }
    }

    /**
     * Starts the workers, injects the faults round after round, stops the workers and checks what
     * they recorded. The workers are always stopped (killed if they do not quit).
     */
    public Result run() throws Exception {
        if (ran) {
            throw new IllegalStateException("a LeadershipHistory runs once");
        }
        ran = true;
        try {
            for (int i = 0; i < workers; i++) {
                startWorker();
            }
            awaitWorking(System.nanoTime(), READY_TIMEOUT, -1);
            for (int round = 0; round < rounds; round++) {
                if (leaderFaults) {
                    pauseLeader();
                    killLeader();
                }
                for (WorkerHistoryBuilder.NamedFault f : backendFaults) {
                    long start = System.nanoTime();
                    try {
                        f.action().inject();
                    } finally {
                        cleanUp.run();
                    }
                    long end = System.nanoTime();
                    faults.add(new Fault(f.name(), start, end, end, -1));
                    settle(end, -1);
                }
            }
        } finally {
            cleanUp.run();
            WorkerJvm.stopAll(jvms(), lease.plusSeconds(10));
        }
        List<TermHistory.Term> terms = new ArrayList<>();
        for (LeadershipWorkerProcess w : all) {
            terms.addAll(w.terms());
        }
        Report report = TermHistory.check(terms, outages, faults, lease, wakeUp);
        return new Result(report, terms, List.copyOf(faults), List.copyOf(outages), WorkerJvm.logs(jvms()));
    }

    // ---- leader faults ----

    private void pauseLeader() throws InterruptedException {
        LeadershipWorkerProcess leader = awaitLeader();
        long start = System.nanoTime();
        leader.jvm().signal("STOP");
        try {
            TimeUnit.NANOSECONDS.sleep(lease.plusSeconds(1).toNanos()); // the fault: a pause past the lease
        } finally {
            leader.jvm().signal("CONT");
        }
        long end = System.nanoTime();
        int index = leader.jvm().index;
        outages.add(new Outage(index, start, end));
        faults.add(new Fault("leader paused past its lease", start, end, start, index));
        settle(start, index);
    }

    private void killLeader() throws Exception {
        LeadershipWorkerProcess leader = awaitLeader();
        long start = System.nanoTime();
        int index = leader.jvm().index;
        outages.add(new Outage(index, start, Long.MAX_VALUE));
        leader.jvm().kill(); // SIGKILL
        faults.add(new Fault("leader killed", start, System.nanoTime(), start, index));
        settle(start, index);
        startWorker(); // keep the number of candidates
    }

    /** Waits for a working leader again after a fault anchored at {@code anchor}, then a steady moment. */
    private void settle(long anchor, int excluded) throws InterruptedException {
        awaitWorking(anchor, lease.plus(wakeUp).plusSeconds(5), excluded);
        TimeUnit.NANOSECONDS.sleep(STEADY.toNanos());
    }

    /** Waits until a work stamp at or after {@code since} comes from a process other than {@code excluded}. */
    private void awaitWorking(long since, Duration bound, int excluded) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() - deadline < 0) {
            for (LeadershipWorkerProcess w : all) {
                if (w.jvm().index != excluded && w.lastWork() - since >= 0) {
                    return;
                }
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        LOG.log(System.Logger.Level.WARNING, "no leader worked within {0} after a fault; going on", bound);
    }

    /** The worker that leads now (its last term elected and not revoked, its process alive). */
    private LeadershipWorkerProcess awaitLeader() throws InterruptedException {
        long deadline = System.nanoTime() + lease.plus(wakeUp).plusSeconds(10).toNanos();
        while (System.nanoTime() - deadline < 0) {
            for (LeadershipWorkerProcess w : all) {
                if (w.jvm().process.isAlive() && w.leading()) {
                    return w;
                }
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        throw new IllegalStateException("no worker leads; worker logs:\n" + WorkerJvm.logs(jvms()));
    }

    // ---- workers ----

    private void startWorker() throws IOException, InterruptedException {
        LeadershipWorkerProcess w = new LeadershipWorkerProcess();
        w.started(WorkerJvm.start(
                all.size(), LeaderWorker.class, jvmOptions, workerArguments, address, READY_TIMEOUT, w));
        all.add(w);
    }

    private List<WorkerJvm> jvms() {
        return all.stream().map(LeadershipWorkerProcess::jvm).toList();
    }

    /**
     * Configures a {@link LeadershipHistory}: what {@link WorkerHistoryBuilder} configures (default
     * name {@code leadership-history}, lease 2 s), and the workers, rounds and wake-up time. Each
     * setter validates its argument. Not thread-safe.
     */
    public static final class Builder extends WorkerHistoryBuilder<Builder> {
        private int workers = 3;
        private Duration wakeUp = Duration.ofSeconds(2);
        private int rounds = 2;
        private boolean naive;
        private boolean leaderFaults = true;

        private Builder() {
            super("leadership-history");
        }

        @Override
        Builder self() {
            return this;
        }

        /** How many worker JVMs campaign at once (default 3, at least 2). */
        public Builder workers(int workers) {
            if (workers < 2) {
                throw new IllegalArgumentException("workers must be at least 2, was " + workers);
            }
            this.workers = workers;
            return this;
        }

        /** Time for a wake-up or a retry to become an election, beyond the lease (default 2 s). */
        public Builder wakeUp(Duration wakeUp) {
            if (wakeUp == null || wakeUp.isNegative()) {
                throw new IllegalArgumentException("wakeUp must be zero or positive, was " + wakeUp);
            }
            this.wakeUp = wakeUp;
            return this;
        }

        /** Rounds of faults (default 2; the system property {@value #ROUNDS_PROPERTY} overrides). */
        public Builder rounds(int rounds) {
            if (rounds < 1) {
                throw new IllegalArgumentException("rounds must be at least 1, was " + rounds);
            }
            this.rounds = rounds;
            return this;
        }

        /** Without the leader's own faults (pause, kill): backend faults only. */
        public Builder withoutLeaderFaults() {
            this.leaderFaults = false;
            return this;
        }

        /**
         * The negative control: workers that take the lock and work, checking nothing and hearing
         * of no loss; the checker must reject their history.
         */
        public Builder naive() {
            this.naive = true;
            return this;
        }

        public LeadershipHistory build() {
            requireProvider();
            return new LeadershipHistory(this);
        }
    }
}
