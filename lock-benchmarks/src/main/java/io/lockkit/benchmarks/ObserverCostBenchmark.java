package io.lockkit.benchmarks;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockObserver;
import io.lockkit.micrometer.LockMetrics;
import io.lockkit.spi.LockProvider;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The cost of a {@link LockObserver}: P1 (an uncontended lock + unlock on one thread) with no
 * observer, with one that counts, and with lock-micrometer's {@link LockMetrics} bound to a
 * {@link SimpleMeterRegistry} (no lock-name tag), over the in-JVM provider (the client's own cost, and the
 * allocation per acquisition with {@code -prof gc}) or over Redis (P1 as the results report it;
 * the Redis named by the {@value LockLatencyBenchmark#URI_PROPERTY} system property). Run e.g.
 * {@code java -cp ... org.openjdk.jmh.Main ObserverCostBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
public class ObserverCostBenchmark {

    /** Counts what it is told, as a metrics binder would. */
    static final class CountingObserver implements LockObserver {
        final AtomicLong acquired = new AtomicLong();
        final AtomicLong waitedNanos = new AtomicLong();
        final AtomicLong released = new AtomicLong();
        final AtomicLong heldNanos = new AtomicLong();

        @Override
        public void acquired(String name, long waited, long fencingToken, boolean reentrant) {
            acquired.incrementAndGet();
            waitedNanos.addAndGet(waited);
        }

        @Override
        public void released(String name, long fencingToken, long held) {
            released.incrementAndGet();
            heldNanos.addAndGet(held);
        }
    }

    @Param({"NONE", "COUNTING", "MICROMETER"})
    public String observer;

    @Param({"LOCAL"})
    public String backend;

    DistributedLockFactory factory;
    DistributedLock lock;
    CountingObserver counting;
    SimpleMeterRegistry registry;

    @Setup(Level.Trial)
    public void open() {
        LockProvider provider;
        if (backend.equals("REDIS")) {
            String uri = System.getProperty(LockLatencyBenchmark.URI_PROPERTY);
            if (uri == null) {
                throw new IllegalStateException(
                        "set -D" + LockLatencyBenchmark.URI_PROPERTY + "=redis://host:port for backend=REDIS");
            }
            provider = LockkitClient.provider(uri, "bench-observer");
        } else {
            provider = new LocalLockProvider();
        }
        DistributedLockFactory.Builder b = DistributedLockFactory.builder(provider);
        if (observer.equals("COUNTING")) {
            counting = new CountingObserver();
            b.observer(counting);
        } else if (observer.equals("MICROMETER")) {
            registry = new SimpleMeterRegistry();
            LockMetrics metrics = LockMetrics.create();
            metrics.bindTo(registry);
            b.observer(metrics);
        }
        factory = b.build();
        lock = factory.getLock("observer-cost-" + ProcessHandle.current().pid());
    }

    @TearDown(Level.Trial)
    public void close() {
        factory.close();
        if (counting != null && counting.acquired.get() != counting.released.get()) {
            throw new IllegalStateException("the observer counted " + counting.acquired + " acquisitions but "
                    + counting.released + " releases");
        }
        if (registry != null
                && registry.get(LockMetrics.ACQUIRE).timer().count()
                        != registry.get(LockMetrics.HELD).timer().count()) {
            throw new IllegalStateException("lockkit.acquire and lockkit.held counts differ");
        }
    }

    /** P1: lock + unlock on one thread, no contention. */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Threads(1)
    public void p1LockUnlock() {
        lock.lock();
        lock.unlock();
    }
}
