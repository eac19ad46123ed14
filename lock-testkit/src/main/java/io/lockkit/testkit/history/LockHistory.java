package io.lockkit.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import io.lockkit.testkit.history.HoldHistory.Hold;
import io.lockkit.testkit.history.HoldHistory.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * <p>Half the threads of a client hold {@link LockHandle}s, half hold the lock as threads
 * ({@link DistributedLock}); now and then (1 in 400) a critical section is long (150–300 ms), so
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
//   the lease) is the caller's. Threads are the run's own (never a common pool: a blocked client
//   must not starve the fault thread), daemon, and interrupted if they do not stop.
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
    private final Duration wait;
    private final Duration faultSpacing;

    private final ConcurrentLinkedQueue<Hold> history = new ConcurrentLinkedQueue<>();
    /** Which thread recorded each hold, by identity: named in the report of a violation. */
    private final Map<Hold, String> holders = Collections.synchronizedMap(new IdentityHashMap<>());
    /** Fault injections as "name start-end" (System.nanoTime()), in order: named in the report of a violation. */
    private final ConcurrentLinkedQueue<long[]> faultTimes = new ConcurrentLinkedQueue<>();

    private long startedAt;
    private final Map<Long, Long> lossHeardAt = new ConcurrentHashMap<>();
    private final AtomicInteger acquisitions = new AtomicInteger();
    private final AtomicInteger acquireTimeouts = new AtomicInteger();
    private final AtomicInteger acquireFailures = new AtomicInteger();
    private final AtomicInteger longHolds = new AtomicInteger();
    private final Map<String, AtomicInteger> injected = new LinkedHashMap<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;
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
        this.wait = b.wait;
        this.faultSpacing = b.faultSpacing;
        for (Fault f : faults) {
            injected.put(f.name(), new AtomicInteger());
        }
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
                DistributedLockFactory client =
                        clientFactory.create(e -> lossHeardAt.putIfAbsent(e.fencingToken(), System.nanoTime()));
                factories.add(client);
                int id = c;
                for (int t = 0; t < threadsPerClient; t++) {
                    boolean handles = t % 2 == 0;
                    start("history-client-" + c + "-" + t, () -> contend(id, client, handles));
                }
            }
            if (!faults.isEmpty()) {
                start("history-faults", this::injectFaults);
            }
            while (!enough() && System.nanoTime() - start < maxRun.toNanos() && failure.get() == null) {
                Thread.sleep(100);
            }
            stop = true;
            if (!join(Duration.ofSeconds(30))) {
                throw new AssertionError("history threads did not stop within 30 s: " + alive());
            }
            Throwable e = failure.get();
            if (e != null) {
                throw new AssertionError(
                        "a client or the fault injector failed (faults so far " + faultCounts() + ")", e);
            }
        } finally {
            stop = true;
            if (!join(Duration.ZERO)) {
                threads.forEach(Thread::interrupt);
                join(Duration.ofSeconds(5));
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
        List<Hold> holds = List.copyOf(history);
        return new Result(this, holds, Map.copyOf(lossHeardAt), faultCounts(), millis);
    }

    private boolean enough() {
        return acquisitions.get() >= minAcquisitions
                && injected.values().stream().allMatch(n -> n.get() >= minRoundsOfFaults);
    }

    private Map<String, Integer> faultCounts() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        injected.forEach((k, v) -> counts.put(k, v.get()));
        return counts;
    }

    // ---- the clients ----

    private void contend(int client, DistributedLockFactory f, boolean handles) {
        DistributedLock lock = f.getLock(lockName);
        while (!stop) {
            try {
                if (handles) {
                    LockHandle h = f.acquire(lockName, LockOptions.waitAtMost(wait));
                    long start = System.nanoTime();
                    long token = h.fencingToken();
                    work();
                    boolean valid = h.isValid();
                    long end = System.nanoTime();
                    record(client, token, start, end, valid, h::release);
                } else {
                    if (!lock.tryLock(wait, null)) {
                        acquireTimeouts.incrementAndGet();
                        continue;
                    }
                    long start = System.nanoTime();
                    long token = lock.fencingToken();
                    work();
                    // Not remainingLease(): it throws once the hold is known lost (a fault may land here).
                    boolean valid = lock.isHeldByCurrentThread();
                    long end = System.nanoTime();
                    record(client, token, start, end, valid, lock::unlock);
                }
            } catch (LockNotAcquiredException e) {
                acquireTimeouts.incrementAndGet();
            } catch (LockException e) {
                acquireFailures.incrementAndGet(); // backend down or stalled: try again
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void record(int client, long token, long start, long end, boolean valid, Runnable release) {
        Outcome outcome;
        try {
            release.run();
            outcome = Outcome.RELEASED;
        } catch (LockLostException e) {
            outcome = Outcome.LOST_AT_RELEASE;
        } catch (LockException e) {
            outcome = Outcome.RELEASE_FAILED;
        }
        Hold hold = new Hold(client, token, start, end, valid, outcome);
        holders.put(hold, Thread.currentThread().getName());
        history.add(hold);
        acquisitions.incrementAndGet();
    }

    /** A short critical section; now and then a long one, so that faults also meet holds midway. */
    private void work() throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (random.nextInt(400) == 0) {
            longHolds.incrementAndGet();
            Thread.sleep(150 + random.nextInt(150));
            return;
        }
        long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(20);
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    // ---- the faults ----

    private void injectFaults() {
        try {
            Thread.sleep(faultSpacing.toMillis());
            while (!stop) {
                for (Fault fault : faults) {
                    if (stop) {
                        return;
                    }
                    if (fault.duringLongHold()) {
                        int seen = longHolds.get();
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                        while (longHolds.get() == seen && System.nanoTime() - until < 0 && !stop) {
                            Thread.sleep(1);
                        }
                    }
                    long from = System.nanoTime();
                    try {
                        fault.action().inject();
                    } finally {
                        faultTimes.add(new long[] {faults.indexOf(fault), from, System.nanoTime()});
                    }
                    java.util.Objects.requireNonNull(injected.get(fault.name())).incrementAndGet();
                    Thread.sleep(faultSpacing.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("injecting a fault failed", e);
        }
    }

    // ---- threads ----

    private void start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.setUncaughtExceptionHandler((thread, e) -> {
            Throwable first =
                    failure.compareAndExchange(null, new AssertionError("thread " + thread.getName() + " failed", e));
            if (first != null) {
                first.addSuppressed(e);
            }
        });
        threads.add(t);
        t.start();
    }

    private boolean join(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(t, left);
            }
        }
        return threads.stream().noneMatch(Thread::isAlive);
    }

    private List<String> alive() {
        return threads.stream().filter(Thread::isAlive).map(Thread::getName).toList();
    }

    /** What a run recorded. Immutable. */
    public static final class Result {
        private static final Pattern TOKEN = Pattern.compile("token=(\\d+)");

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
            return run.acquireFailures.get();
        }

        /** Acquisitions that timed out. */
        public int acquireTimeouts() {
            return run.acquireTimeouts.get();
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

        /** The holds with these tokens (thread, times in ms since the run began) and the faults within 5 s of them. */
        private String describe(List<Long> tokens) {
            StringBuilder sb = new StringBuilder();
            long window = TimeUnit.SECONDS.toNanos(5);
            for (Hold h : holds) {
                if (!tokens.contains(h.token())) {
                    continue;
                }
                sb.append(String.format(
                        "  token %d: %s %.1f-%.1f ms, %s, valid at end %s, loss heard %s%n",
                        h.token(),
                        run.holders.get(h),
                        ms(h.start()),
                        ms(h.end()),
                        h.outcome(),
                        h.validAtEnd(),
                        lossHeardAt.containsKey(h.token())));
                for (long[] f : run.faultTimes) {
                    if (f[2] > h.start() - window && f[1] < h.end() + window) {
                        sb.append(String.format(
                                "    fault %s %.1f-%.1f ms%n",
                                run.faults.get((int) f[0]).name(), ms(f[1]), ms(f[2])));
                    }
                }
            }
            return sb.toString();
        }

        /** Fails with the violations, the holds they name and the faults near those holds, if any. */
        private void assertNone(List<String> violations, String what) {
            if (!violations.isEmpty()) {
                assertThat(violations)
                        .as(
                                "%s; the holds concerned and the faults near them:%n%s",
                                what, describe(tokensIn(violations)))
                        .isEmpty();
            }
        }

        /** The tokens named ({@code token=N}) in the report's lines. */
        private static List<Long> tokensIn(List<String> lines) {
            List<Long> tokens = new ArrayList<>();
            for (String line : lines) {
                Matcher m = TOKEN.matcher(line);
                while (m.find()) {
                    tokens.add(Long.parseLong(m.group(1)));
                }
            }
            return tokens;
        }

        private double ms(long nanos) {
            return (nanos - run.startedAt) / 1e6;
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
