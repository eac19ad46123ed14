package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.spi.LockProvider;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The multi-process history check of a read/write lock, a leased semaphore or a fair lock, for any
 * provider: several worker JVMs ({@link PrimitiveWorker}), each with its factory and several
 * threads, take one primitive of one name over and over on a real backend while faults hit, in
 * turn, round after round: a worker's JVM paused past the lease (SIGSTOP, then SIGCONT), a worker's
 * JVM killed ({@code kill -9}, and a fresh one started in its place), and the backend faults the
 * caller names (restarts, stalls, connection kills). Every worker reports each hold with its mode,
 * weight, token, times and how it ended; {@link ClaimHistory} then checks that no write hold
 * overlapped another valid hold, that the permits of valid holds never exceeded the capacity, and
 * that tokens are ordered after write holds (a fair lock is checked as a lock: FIFO order is not
 * asserted under faults).
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
//   backend frees them when their leases run out; the checker sees only reported holds.
public final class PrimitiveHistory {

    /** System property: the least number of acquisitions, for longer runs than the builder's. */
    public static final String ACQUISITIONS_PROPERTY = "lockkit.primitive.history.acquisitions";

    /** The primitive a run exercises. */
    public enum Primitive {
        /** {@code getReadWriteLock}: mostly reads (9 in 10), some writes, by handles. */
        READ_WRITE_LOCK,
        /** {@code getSemaphore}: 1 or 2 permits of the capacity, by handles. */
        SEMAPHORE,
        /** {@code getFairLock}: held by threads; checked as a lock. */
        FAIR_LOCK;

        String argument() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final Primitive primitive;
    private final Builder config;
    private final int minAcquisitions;
    private final Duration maxRun;
    private final List<WorkerJvm> all = new CopyOnWriteArrayList<>();
    private final PrimitiveWorkerOutput output = new PrimitiveWorkerOutput();
    private final Map<String, Integer> injected = new LinkedHashMap<>();
    private int rounds;
    private boolean ran;

    private PrimitiveHistory(Builder b) {
        this.primitive = b.primitive;
        this.config = b;
        Integer wanted = Integer.getInteger(ACQUISITIONS_PROPERTY);
        this.minAcquisitions = wanted == null ? b.minAcquisitions : Math.max(wanted, b.minAcquisitions);
        // A longer run gets the time it needs: the builder's bound scaled by the acquisitions asked for.
        this.maxRun = b.maxRun.multipliedBy(Math.max(1, (minAcquisitions + b.minAcquisitions - 1) / b.minAcquisitions));
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
     * not quit).
     */
    public Result run() throws Exception {
        if (ran) {
            throw new IllegalStateException("a PrimitiveHistory runs once");
        }
        ran = true;
        long start = System.nanoTime();
        try {
            for (int i = 0; i < config.workers; i++) {
                startWorker();
            }
            while ((output.acquisitions() < minAcquisitions || rounds < config.rounds)
                    && System.nanoTime() - start < maxRun.toNanos()
                    && output.deaths().isEmpty()) {
                round();
            }
        } finally {
            config.cleanUp.run();
            WorkerJvm.stopAll(all, config.lease.plusSeconds(10));
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        int capacity = primitive == Primitive.SEMAPHORE ? config.capacity : ClaimHistory.UNBOUNDED;
        ClaimHistory.Report report = ClaimHistory.check(output.holds(), output.lossHeardAt(), capacity);
        return new Result(this, report, Map.copyOf(injected), millis, WorkerJvm.logs(all));
    }

    /**
     * One round of faults: a worker paused and one killed (unless turned off), then each backend
     * fault. Once the rounds asked for are done, a further round ends at the first fault after the
     * run has its acquisitions, so a run is not longer than it needs.
     */
    private void round() throws Exception {
        List<Builder.NamedFault> steps = new ArrayList<>();
        if (config.workerFaults) {
            steps.add(new Builder.NamedFault("worker paused past the lease", this::pauseWorker));
            steps.add(new Builder.NamedFault("worker killed", this::killWorker));
        }
        steps.addAll(config.backendFaults);
        for (Builder.NamedFault f : steps) {
            if (rounds >= config.rounds && output.acquisitions() >= minAcquisitions) {
                return;
            }
            try {
                f.action().inject();
            } finally {
                config.cleanUp.run();
            }
            injected.merge(f.name(), 1, Integer::sum);
            TimeUnit.MILLISECONDS.sleep(config.spacing.toMillis());
        }
        if (steps.isEmpty()) {
            TimeUnit.MILLISECONDS.sleep(config.spacing.toMillis()); // no faults: the run only waits
        }
        rounds++;
    }

    private void pauseWorker() throws InterruptedException {
        WorkerJvm paused = busiestAlive();
        paused.signal("STOP");
        try {
            TimeUnit.MILLISECONDS.sleep(config.lease.plusSeconds(1).toMillis()); // past the lease
        } finally {
            paused.signal("CONT");
        }
    }

    private void killWorker() throws IOException, InterruptedException {
        busiestAlive().kill();
        startWorker(); // keep the number of clients
    }

    /** The live worker that reported the most holds: it is the likeliest to be inside one now. */
    private WorkerJvm busiestAlive() {
        WorkerJvm busiest = null;
        for (WorkerJvm w : all) {
            if (w.process.isAlive()
                    && (busiest == null || output.acquisitionsOf(w.index) > output.acquisitionsOf(busiest.index))) {
                busiest = w;
            }
        }
        if (busiest == null) {
            throw new IllegalStateException("no worker alive:\n" + WorkerJvm.logs(all));
        }
        return busiest;
    }

    private void startWorker() throws IOException, InterruptedException {
        int index = all.size();
        Map<String, String> args = new LinkedHashMap<>();
        args.put("name", config.name);
        args.put("lease-ms", Long.toString(config.lease.toMillis()));
        args.put("provider", Objects.requireNonNull(config.provider).getName());
        args.put("primitive", primitive.argument());
        args.put("capacity", Integer.toString(config.capacity));
        args.put("threads", Integer.toString(config.threads));
        args.put("wait-ms", Long.toString(config.wait.toMillis()));
        all.add(WorkerJvm.start(
                index,
                PrimitiveWorker.class,
                config.jvmOptions,
                args,
                Objects.requireNonNull(config.address),
                READY_TIMEOUT,
                f -> output.accept(index, f)));
    }

    /** What a run recorded and what the checker found. Immutable. */
    public static final class Result {
        private final PrimitiveHistory run;
        private final ClaimHistory.Report report;
        private final Map<String, Integer> faults;
        private final long runMillis;
        private final String workerLogs;

        private Result(
                PrimitiveHistory run,
                ClaimHistory.Report report,
                Map<String, Integer> faults,
                long runMillis,
                String workerLogs) {
            this.run = run;
            this.report = report;
            this.faults = faults;
            this.runMillis = runMillis;
            this.workerLogs = workerLogs;
        }

        /** The checker's report. */
        public ClaimHistory.Report report() {
            return report;
        }

        /** How often each fault was injected, by name. */
        public Map<String, Integer> faults() {
            return faults;
        }

        /** How long the run took. */
        public long runMillis() {
            return runMillis;
        }

        /** Two lines on what happened, for the test's output. */
        public String summary() {
            ClaimHistory.Report r = report;
            return String.format(
                    "%s history: %d acquisitions (%d exclusive) in %.1f s by %d worker JVMs x %d threads, %d rounds,"
                            + " faults injected %s; acquisitions that timed out %d, failed %d%n"
                            + "%s history: %d clean holds; lost: %d told by listener, %d told at release, %d invalid"
                            + " at the end, %d never valid; %d releases failed; most weight valid at once %d%s;"
                            + " overlaps involving a lost hold %d; stale lost holders %d; violations %d",
                    run.primitive.argument(),
                    r.holds(),
                    r.exclusive(),
                    runMillis / 1000.0,
                    run.all.size(),
                    run.config.threads,
                    run.rounds,
                    faults,
                    run.output.timeouts(),
                    run.output.failures(),
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
                    r.violations().size());
        }

        /**
         * Asserts the run was long enough (the acquisitions and rounds of faults asked for) and safe:
         * every {@link ClaimHistory} invariant held.
         */
        public Result assertSafe() {
            assertThat(report.violations())
                    .as("%s history violations; %s%nworker logs:%n%s", run.primitive, summary(), workerLogs)
                    .isEmpty();
            assertThat(run.output.deaths())
                    .as("worker threads ended by an exception; worker logs:%n%s", workerLogs)
                    .isEmpty();
            assertThat(report.holds())
                    .as("acquisitions; %s%nworker logs:%n%s", summary(), workerLogs)
                    .isGreaterThanOrEqualTo(run.minAcquisitions);
            assertThat(faults.values())
                    .as("rounds of every fault " + faults)
                    .allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(run.config.rounds));
            return this;
        }
    }

    /** Configures a {@link PrimitiveHistory}; each setter validates its argument. Not thread-safe. */
    public static final class Builder {
        /** A backend fault: its action returns once it is over (the backend reachable again). */
        record NamedFault(String name, LockHistory.FaultAction action) {}

        private final Primitive primitive;
        private @Nullable Class<? extends Function<String, LockProvider>> provider;
        private @Nullable String address;
        private String name = "primitive-history";
        private Duration lease = Duration.ofSeconds(2);
        private int workers = 3;
        private int threads = 3;
        private int capacity = 3;
        private Duration wait = Duration.ofSeconds(2);
        private int minAcquisitions = 2_000;
        private int rounds = 1;
        private Duration maxRun = Duration.ofSeconds(60);
        private Duration spacing = Duration.ofSeconds(1);
        private boolean workerFaults = true;
        private final List<NamedFault> backendFaults = new ArrayList<>();
        private Runnable cleanUp = () -> {};
        private List<String> jvmOptions = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k");

        private Builder(Primitive primitive) {
            this.primitive = primitive;
        }

        /**
         * The workers' provider: {@code factory} (public, with a public no-argument constructor) is
         * given {@code address} in each worker JVM and returns a new provider of the backend.
         */
        public Builder provider(Class<? extends Function<String, LockProvider>> factory, String address) {
            if (factory == null || address == null) {
                throw new IllegalArgumentException("factory and address must not be null");
            }
            this.provider = factory;
            this.address = address;
            return this;
        }

        /** The name the workers take (default {@code primitive-history}). */
        public Builder name(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank");
            }
            this.name = name;
            return this;
        }

        /** The workers' watchdog lease (default 2 s); a paused worker stays stopped 1 s longer. */
        public Builder lease(Duration lease) {
            if (lease == null || lease.toMillis() < 100) {
                throw new IllegalArgumentException("lease must be at least 100 ms, was " + lease);
            }
            this.lease = lease;
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
         * The run lasts until at least {@code acquisitions} holds are reported (default 2,000; the
         * system property {@value #ACQUISITIONS_PROPERTY} raises it) and {@code rounds} rounds of
         * faults were injected (default 1), or {@code maxRun} passed (default 60 s, scaled with the
         * property's acquisitions).
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

        /** Adds a backend fault; {@code action} returns once the backend is reachable again. */
        public Builder backendFault(String name, LockHistory.FaultAction action) {
            if (name == null || name.isBlank() || action == null) {
                throw new IllegalArgumentException("a fault needs a name and an action");
            }
            backendFaults.add(new NamedFault(name, action));
            return this;
        }

        /** Run after each backend fault and at the end, e.g. to resume a paused server (default: nothing). */
        public Builder cleanUp(Runnable cleanUp) {
            if (cleanUp == null) {
                throw new IllegalArgumentException("cleanUp must not be null");
            }
            this.cleanUp = cleanUp;
            return this;
        }

        /** Without the workers' own faults (pause, kill): backend faults only. */
        public Builder withoutWorkerFaults() {
            this.workerFaults = false;
            return this;
        }

        public PrimitiveHistory build() {
            if (provider == null || address == null) {
                throw new IllegalArgumentException("provider(...) must be set");
            }
            return new PrimitiveHistory(this);
        }

        private static Duration positive(@Nullable Duration d, String argument) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(argument + " must be positive, was " + d);
            }
            return d;
        }
    }
}
