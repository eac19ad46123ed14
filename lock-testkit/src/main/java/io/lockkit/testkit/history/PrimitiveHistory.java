package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The multi-process history check of a read/write lock, a leased semaphore, a fair lock or a
 * multi-lock, for any provider: several worker JVMs ({@link PrimitiveWorker}), each with its
 * factory and several threads, take one primitive over and over on a real backend while faults
 * hit, in turn, round after round: a worker's JVM paused past the lease (SIGSTOP, then SIGCONT), a
 * worker's JVM killed ({@code kill -9}, and a fresh one started in its place), and the backend
 * faults the caller names (restarts, stalls, connection kills). Every worker reports each hold with
 * its mode, weight, token, times and how it ended; {@link ClaimHistory} then checks that no write
 * hold overlapped another valid hold, that the permits of valid holds never exceeded the capacity,
 * and that tokens are ordered after write holds (a fair lock is checked as a lock: FIFO order is not
 * asserted under faults). A multi-lock's members are checked per name as a lock's holds, and each
 * granted multi-lock for all its names ({@link MultiLockHistory}). After each fault the workers must
 * acquire again within a bound ({@link Builder#progressWithin}), or the run stops as stalled.
 *
 * <pre>{@code
 * PrimitiveHistory.Result r = PrimitiveHistory.builder(PrimitiveHistory.Primitive.SEMAPHORE)
 *         .provider(MyWorkerProviders.class, backendAddress)   // a Function<String, LockProvider>
 *         .backendFault("backend restarted", server::restart)
 *         .build()
 *         .run();
 * r.assertSafe();
 * }</pre>
 *
 * <p>The workers run as {@link LeadershipHistory}'s do (this JVM's {@code java} and class path,
 * one clock, signals by {@code kill}). The run lasts until at least the builder's acquisitions
 * were recorded (the system property {@value #ACQUISITIONS_PROPERTY} raises it for longer runs) and
 * the builder's rounds of faults were injected, or its time ran out. Not thread-safe to configure;
 * {@link #run()} may be called once.
 */
// Design notes.
// - Faults are injected one at a time from the driver's thread, with a pause between them in which
//   the workers go on, so each fault meets holds in progress and a system that had recovered.
// - A killed worker's holds in progress are never reported: they end with its process, and the
//   backend frees them when their leases run out; the checker sees only reported holds. A
//   multi-lock is reported in one line, so a kill never leaves half of one reported.
// - The workers (PrimitiveWorkers), the faults' rounds and progress (PrimitiveRounds) and the
//   checkers (ClaimHistory, MultiLockHistory) are apart; this class configures and runs them.
public final class PrimitiveHistory {

    /** System property: the least number of acquisitions, for longer runs than the builder's. */
    public static final String ACQUISITIONS_PROPERTY = "lockkit.primitive.history.acquisitions";

    /** Beyond the lease and the wait, how long the workers may take to acquire again after a fault. */
    public static final int PROGRESS_SLACK_SECONDS = 10;

    /** The multi-lock's pool of names: each acquisition takes 2 or 3 of them. */
    public static final int MULTI_LOCK_NAMES = 4;

    /** The primitive a run exercises. */
    public enum Primitive {
        /** {@code getReadWriteLock}: mostly reads (9 in 10), some writes, by handles. */
        READ_WRITE_LOCK,
        /** {@code getSemaphore}: 1 or 2 permits of the capacity, by handles. */
        SEMAPHORE,
        /** {@code getFairLock}: held by threads; checked as a lock. */
        FAIR_LOCK,
        /**
         * {@code acquireAll}: 2 or 3 of {@value #MULTI_LOCK_NAMES} names ({@code <name>:0} to
         * {@code <name>:3}), passed in a random order; each name checked as a lock, each grant for
         * all its names.
         */
        MULTI_LOCK;

        String argument() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private final Primitive primitive;
    private final Builder config;
    private final int minAcquisitions;
    private final Duration maxRun;
    private final Duration progressBound;
    private final List<String> names;
    private final PrimitiveWorkerOutput output;
    private final PrimitiveWorkers workers;
    private final PrimitiveRounds rounds;
    private boolean ran;

    private PrimitiveHistory(Builder b) {
        this.primitive = b.primitive;
        this.config = b;
        Integer wanted = Integer.getInteger(ACQUISITIONS_PROPERTY);
        this.minAcquisitions = wanted == null ? b.minAcquisitions : Math.max(wanted, b.minAcquisitions);
        // A longer run gets the time it needs: the builder's bound scaled by the acquisitions asked for.
        this.maxRun = b.maxRun.multipliedBy(Math.max(1, (minAcquisitions + b.minAcquisitions - 1) / b.minAcquisitions));
        this.progressBound = b.progressWithin != null
                ? b.progressWithin
                : b.lease().plus(b.wait).plusSeconds(PROGRESS_SLACK_SECONDS);
        int pool = primitive == Primitive.MULTI_LOCK ? MULTI_LOCK_NAMES : 1;
        this.names = PrimitiveWorker.names(b.name(), pool);
        this.output = new PrimitiveWorkerOutput(names);
        Map<String, String> args = b.workerArguments();
        args.put("primitive", primitive.argument());
        args.put("capacity", Integer.toString(b.capacity));
        args.put("names", Integer.toString(pool));
        args.put("threads", Integer.toString(b.threads));
        args.put("wait-ms", Long.toString(b.wait.toMillis()));
        this.workers = new PrimitiveWorkers(b.jvmOptions(), args, b.address(), output);
        List<WorkerHistoryBuilder.NamedFault> steps = new ArrayList<>();
        if (b.workerFaults) {
            steps.add(new WorkerHistoryBuilder.NamedFault(
                    "worker paused past the lease",
                    () -> workers.pauseBusiest(b.lease().plusSeconds(1))));
            steps.add(new WorkerHistoryBuilder.NamedFault("worker killed", workers::killBusiestAndReplace));
        }
        steps.addAll(b.backendFaults());
        this.rounds = new PrimitiveRounds(
                steps, b.cleanUpAction(), output, b.rounds, minAcquisitions, b.spacing, progressBound);
    }

    /** A builder of a run of {@code primitive}. */
    public static Builder builder(Primitive primitive) {
        if (primitive == null) {
            throw new IllegalArgumentException("primitive must not be null");
        }
        return new Builder(primitive);
    }

    /**
     * Starts the workers, injects the faults round after round until the run is long enough, stops
     * the workers and checks what they reported. The workers are always stopped (killed if they do
     * not quit). A run whose workers stop acquiring ends at once (see {@link Result#stalls()}).
     */
    public Result run() throws Exception {
        if (ran) {
            throw new IllegalStateException("a PrimitiveHistory runs once");
        }
        ran = true;
        long start = System.nanoTime();
        try {
            for (int i = 0; i < config.workers; i++) {
                workers.start();
            }
            rounds.run(start, maxRun);
        } finally {
            config.cleanUpAction().run();
            workers.stopAll(config.lease().plusSeconds(10));
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        ClaimHistory.Report report;
        List<String> incomplete = List.of();
        if (primitive == Primitive.MULTI_LOCK) {
            MultiLockHistory.Report multi = MultiLockHistory.check(output.grants(), output.lossHeardAt());
            report = multi.members();
            incomplete = multi.incompleteGrants();
        } else {
            int capacity = primitive == Primitive.SEMAPHORE ? config.capacity : ClaimHistory.UNBOUNDED;
            report = ClaimHistory.check(output.holds(), output.lossHeardAt(names.get(0)), capacity);
        }
        return new Result(this, report, incomplete, rounds.injected(), millis, workers.logs());
    }

    /** What a run recorded and what the checker found. Immutable. */
    public static final class Result {
        private final PrimitiveHistory run;
        private final ClaimHistory.Report report;
        private final List<String> incompleteGrants;
        private final Map<String, Integer> faults;
        private final long runMillis;
        private final String workerLogs;

        private Result(
                PrimitiveHistory run,
                ClaimHistory.Report report,
                List<String> incompleteGrants,
                Map<String, Integer> faults,
                long runMillis,
                String workerLogs) {
            this.run = run;
            this.report = report;
            this.incompleteGrants = List.copyOf(incompleteGrants);
            this.faults = faults;
            this.runMillis = runMillis;
            this.workerLogs = workerLogs;
        }

        /** The checker's report; for a multi-lock, its members' holds of every name together. */
        public ClaimHistory.Report report() {
            return report;
        }

        /** The multi-locks granted without all the names they asked for (empty for other primitives). */
        public List<String> incompleteGrants() {
            return incompleteGrants;
        }

        /** The faults after which the workers did not acquire again in time: empty unless the run stalled. */
        public List<String> stalls() {
            return run.rounds.stalls();
        }

        /** Acquisitions reported: holds, or granted multi-locks. */
        public int acquisitions() {
            return run.output.acquisitions();
        }

        /** How often each fault was injected, by name. */
        public Map<String, Integer> faults() {
            return faults;
        }

        /** How long the run took. */
        public long runMillis() {
            return runMillis;
        }

        /** Every violation of the checkers, one per line: the report's, then the incomplete grants. */
        public List<String> violations() {
            List<String> all = new ArrayList<>(report.violations());
            incompleteGrants.forEach(v -> all.add("multi-lock granted without all it asked for: " + v));
            return all;
        }

        /** Two lines on what happened, for the test's output. */
        public String summary() {
            ClaimHistory.Report r = report;
            boolean multi = run.primitive == Primitive.MULTI_LOCK;
            return String.format(
                    "%s history: %d acquisitions (%s) in %.1f s by %d worker JVMs x %d threads, %d rounds,"
                            + " faults injected %s; acquisitions that timed out %d, failed %d, threw a loss %d%n"
                            + "%s history: %d clean holds; lost: %d told by listener, %d told at release, %d invalid"
                            + " at the end, %d never valid; %d releases failed; most weight valid at once %d%s;"
                            + " overlaps involving a lost hold %d; stale lost holders %d; violations %d; stalls %d",
                    run.primitive.argument(),
                    acquisitions(),
                    multi
                            ? r.holds() + " member holds of " + run.names.size() + " names"
                            : r.exclusive() + " exclusive",
                    runMillis / 1000.0,
                    run.workers.size(),
                    run.config.threads,
                    run.rounds.rounds(),
                    faults,
                    run.output.timeouts(),
                    run.output.failures(),
                    run.output.lostInAcquisition(),
                    run.primitive.argument(),
                    r.clean(),
                    r.lostHeard(),
                    r.lostAtRelease(),
                    r.invalidAtEnd(),
                    r.neverValid(),
                    r.releaseFailed(),
                    r.maxWeight(),
                    run.primitive == Primitive.SEMAPHORE ? " (capacity " + run.config.capacity + ")" : "",
                    r.overlapsWithLost(),
                    r.staleHolders(),
                    violations().size(),
                    stalls().size());
        }

        /**
         * Asserts the run was safe (every {@link ClaimHistory} invariant held; for a multi-lock, per
         * name and all or nothing), made progress after every fault, and was long enough (the
         * acquisitions and rounds of faults asked for).
         */
        public Result assertSafe() {
            assertThat(violations())
                    .as("%s history violations; %s%nworker logs:%n%s", run.primitive, summary(), workerLogs)
                    .isEmpty();
            assertThat(run.output.deaths())
                    .as("worker threads ended by an exception; worker logs:%n%s", workerLogs)
                    .isEmpty();
            assertThat(stalls())
                    .as("acquisitions stopped; %s%nworker logs:%n%s", summary(), workerLogs)
                    .isEmpty();
            assertThat(run.output.lostInAcquisition())
                    .as(
                            "acquisitions that threw LockLostException (neither a timeout nor a backend failure); %s%n"
                                    + "worker logs:%n%s",
                            summary(), workerLogs)
                    .isZero();
            assertThat(acquisitions())
                    .as("acquisitions; %s%nworker logs:%n%s", summary(), workerLogs)
                    .isGreaterThanOrEqualTo(run.minAcquisitions);
            assertThat(faults.values())
                    .as("rounds of every fault " + faults)
                    .allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(run.config.rounds));
            return this;
        }
    }

    /**
     * Configures a {@link PrimitiveHistory}: what {@link WorkerHistoryBuilder} configures (default
     * name {@code primitive-history}, lease 2 s), and the workers, the run's length and its faults.
     * Each setter validates its argument. Not thread-safe.
     */
    public static final class Builder extends WorkerHistoryBuilder<Builder> {
        private final Primitive primitive;
        private int workers = 3;
        private int threads = 3;
        private int capacity = 3;
        private Duration wait = Duration.ofSeconds(2);
        private int minAcquisitions = 2_000;
        private int rounds = 1;
        private Duration maxRun = Duration.ofSeconds(60);
        private Duration spacing = Duration.ofSeconds(1);
        private boolean workerFaults = true;
        private @Nullable Duration progressWithin;

        private Builder(Primitive primitive) {
            super("primitive-history");
            this.primitive = primitive;
        }

        @Override
        Builder self() {
            return this;
        }

        /** Worker JVMs at once (default 3, at least 2) and threads in each (default 3, 1..16). */
        public Builder workers(int workers, int threadsEach) {
            if (workers < 2) {
                throw new IllegalArgumentException("workers must be at least 2, was " + workers);
            }
            if (threadsEach < 1 || threadsEach > 16) {
                throw new IllegalArgumentException("threadsEach must be in 1..16, was " + threadsEach);
            }
            this.workers = workers;
            this.threads = threadsEach;
            return this;
        }

        /** A semaphore's capacity (default 3, at least 2: acquisitions take 1 or 2 permits). */
        public Builder capacity(int capacity) {
            if (capacity < 2) {
                throw new IllegalArgumentException("capacity must be at least 2, was " + capacity);
            }
            this.capacity = capacity;
            return this;
        }

        /** How long an acquisition waits (default 2 s). */
        public Builder waitAtMost(Duration wait) {
            this.wait = positive(wait, "wait");
            return this;
        }

        /**
         * The run lasts until at least {@code acquisitions} holds (or multi-locks) are reported
         * (default 2,000; the system property {@value #ACQUISITIONS_PROPERTY} raises it) and
         * {@code rounds} rounds of faults were injected (default 1), or {@code maxRun} passed
         * (default 60 s, scaled with the property's acquisitions).
         */
        public Builder length(int acquisitions, int rounds, Duration maxRun) {
            if (acquisitions < 1 || rounds < 1) {
                throw new IllegalArgumentException(
                        "acquisitions and rounds must be positive, were " + acquisitions + ", " + rounds);
            }
            this.minAcquisitions = acquisitions;
            this.rounds = rounds;
            this.maxRun = positive(maxRun, "maxRun");
            return this;
        }

        /** The pause after each fault, while the workers go on (default 1 s). */
        public Builder faultSpacing(Duration spacing) {
            this.spacing = positive(spacing, "spacing");
            return this;
        }

        /**
         * How long the workers may go without an acquisition after their start and after each
         * fault before the run stops as stalled (default: the lease, the wait and
         * {@value #PROGRESS_SLACK_SECONDS} s).
         */
        public Builder progressWithin(Duration bound) {
            this.progressWithin = positive(bound, "bound");
            return this;
        }

        /** Without the workers' own faults (pause, kill): backend faults only. */
        public Builder withoutWorkerFaults() {
            this.workerFaults = false;
            return this;
        }

        public PrimitiveHistory build() {
            requireProvider();
            return new PrimitiveHistory(this);
        }
    }
}
