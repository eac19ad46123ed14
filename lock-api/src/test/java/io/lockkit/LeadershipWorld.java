package io.lockkit;

import static org.awaitility.Awaitility.await;

import io.lockkit.Leadership.RevocationReason;
import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Several instances campaigning for one name over one in-JVM backend, each a factory of its own,
 * all on one fake clock and one manual scheduler: the test moves time, every callback is recorded
 * in one log with the fake time it started and ended at, and callbacks of one leadership that
 * overlap are counted. Close it after the test.
 */
final class LeadershipWorld implements AutoCloseable {

    static final String NAME = "leadership-test";

    /** One callback as it ran. */
    record Call(
            String instance,
            String kind,
            long token,
            @Nullable RevocationReason reason,
            long startNanos,
            long endNanos,
            String thread) {}

    final FakeTicker ticker = new FakeTicker();
    final ManualScheduler scheduler = new ManualScheduler(ticker);
    final LocalLockProvider backend = new LocalLockProvider(ticker);
    final List<Call> calls = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    /** One instance: its factory, its provider (a client of the shared backend) and its leadership. */
    final class Instance {
        final String id;
        final LocalLockProvider provider;
        final DistributedLockFactory factory;
        final Leadership leadership;
        final AtomicInteger inCallback = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();

        Instance(
                String id,
                LockProvider wrapped,
                LocalLockProvider provider,
                LeadershipOptions.Builder options,
                Consumer<Term> elected,
                BiConsumer<Term, RevocationReason> revoked) {
            this.id = id;
            this.provider = provider;
            this.factory = DistributedLockFactory.builder(wrapped)
                    .ticker(ticker)
                    .scheduler(scheduler)
                    .subscriptionLinger(Duration.ZERO)
                    .build();
            closeables.add(factory);
            this.leadership = factory.leadership(
                    NAME,
                    options.onElected(t -> record("elected", t, null, () -> elected.accept(t)))
                            .onRevoked((t, r) -> record("revoked", t, r, () -> revoked.accept(t, r)))
                            .build());
            closeables.add(0, leadership);
        }

        private void record(String kind, Term t, @Nullable RevocationReason reason, Runnable body) {
            if (inCallback.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            long start = ticker.nanoTime();
            try {
                body.run();
            } finally {
                calls.add(new Call(
                        id,
                        kind,
                        t.fencingToken(),
                        reason,
                        start,
                        ticker.nanoTime(),
                        Thread.currentThread().getName()));
                inCallback.decrementAndGet();
            }
        }

        /** The callbacks of this instance, in order. */
        List<Call> calls() {
            return calls.stream().filter(c -> c.instance.equals(id)).toList();
        }

        /** Waits (in real time) until this instance leads. */
        Term awaitLeading() {
            await("instance " + id + " leads").atMost(Duration.ofSeconds(10)).until(leadership::isLeader);
            return leadership.currentTerm().orElseThrow();
        }

        /** Waits until this instance's campaign waits for the lock: subscribed to its wake-ups. */
        void awaitCampaigning() {
            await("instance " + id + " waits for the lock")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> provider.subscriptions() > 0);
        }

        /** Waits until this instance has had {@code n} callbacks. */
        void awaitCalls(int n) {
            await("instance " + id + " has had " + n + " callbacks")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> calls().size() >= n);
        }
    }

    /** A new instance with these options (callbacks that record themselves are added to them). */
    Instance instance(String id, LeadershipOptions.Builder options) {
        return instance(id, options, t -> {}, (t, r) -> {}, p -> p);
    }

    /** A new instance with callbacks that run {@code elected} and {@code revoked} (recorded around them). */
    Instance instance(
            String id,
            LeadershipOptions.Builder options,
            Consumer<Term> elected,
            BiConsumer<Term, RevocationReason> revoked) {
        return instance(id, options, elected, revoked, p -> p);
    }

    /** A new instance whose provider is {@code wrap} of a new client of the shared backend. */
    Instance instance(
            String id,
            LeadershipOptions.Builder options,
            Consumer<Term> elected,
            BiConsumer<Term, RevocationReason> revoked,
            Function<LocalLockProvider, LockProvider> wrap) {
        LocalLockProvider p = backend.newClient();
        return new Instance(id, wrap.apply(p), p, options, elected, revoked);
    }

    /** Options with a 3 s lease renewed every second, a 300 ms margin, a 3 s rejoin delay. */
    static LeadershipOptions.Builder options() {
        return LeadershipOptions.builder()
                .lease(Duration.ofSeconds(3))
                .renewalInterval(Duration.ofSeconds(1))
                .revocationMargin(Duration.ofMillis(300))
                .rejoinDelay(Duration.ofSeconds(3));
    }

    /** {@link #options()} changed by {@code change}. */
    static LeadershipOptions.Builder options(UnaryOperator<LeadershipOptions.Builder> change) {
        return change.apply(options());
    }

    /** Moves the fake clock by {@code d} in steps of {@code step}, running what falls due. */
    void advance(Duration d, Duration step) {
        for (long done = 0; done < d.toNanos(); done += step.toNanos()) {
            scheduler.advance(Duration.ofNanos(Math.min(step.toNanos(), d.toNanos() - done)));
        }
    }

    /** Whether another client could take the lock now (it releases it again). */
    boolean lockIsFree() {
        try (DistributedLockFactory probe = DistributedLockFactory.builder(backend.newClient())
                .ticker(ticker)
                .build()) {
            return probe.tryAcquire(NAME)
                    .map(h -> {
                        h.release();
                        return true;
                    })
                    .orElse(false);
        }
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }
}
