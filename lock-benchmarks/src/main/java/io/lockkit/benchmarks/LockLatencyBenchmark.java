package io.lockkit.benchmarks;

import io.lockkit.benchmarks.BenchClient.BenchLock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * P1 and P2 under JMH: an uncontended lock + unlock pair, on one thread (sample time: p50 and
 * p99) and on 32 threads each with a name of its own (throughput). One client per fork; the Redis
 * is the harness's, named by the {@value #URI_PROPERTY} system property.
 */
@State(Scope.Benchmark)
public class LockLatencyBenchmark {

    /** The system property naming the benchmark Redis. */
    public static final String URI_PROPERTY = "lockkit.bench.uri";

    private static final AtomicInteger NAMES = new AtomicInteger();

    @Param({"FLOOR", "LOCKKIT", "REDISSON"})
    public Library library;

    BenchClient client;

    @Setup(Level.Trial)
    public void open() {
        String uri = System.getProperty(URI_PROPERTY);
        if (uri == null) {
            throw new IllegalStateException("set -D" + URI_PROPERTY + "=redis://host:port (BenchmarkMain does)");
        }
        client = BenchClient.open(library, uri, "bench-" + library.name().toLowerCase() + "-jmh");
    }

    @TearDown(Level.Trial)
    public void close() {
        client.close();
    }

    /** Each benchmark thread's own lock name. */
    @State(Scope.Thread)
    public static class OwnLock {
        BenchLock lock;

        @Setup(Level.Trial)
        public void open(LockLatencyBenchmark benchmark) {
            lock = benchmark.client.lock("jmh-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet());
        }
    }

    /** P1: lock + unlock on one thread, no contention. */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Threads(1)
    public void p1LockUnlock(OwnLock own) {
        own.lock.lock();
        own.lock.unlock();
    }

    /** P2: lock + unlock pairs per second, 32 threads on distinct names. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @Threads(32)
    public void p2DistinctNames(OwnLock own) {
        own.lock.lock();
        own.lock.unlock();
    }
}
