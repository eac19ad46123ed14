package io.lockkit.benchmarks;

import java.util.stream.Collectors;

/** The report's "Method" section: how each scenario was run, with the settings of this run. */
final class ReportMethod {

    private ReportMethod() {}

    static String markdown(BenchmarkMain.Settings s) {
        return """
                - **Clients.** Each client plays one process: its own connections and threads. lockkit is \
                `DistributedLockFactory.create(JedisLockProvider…)` with default settings (watchdog lease 30 s, 16 pooled \
                command connections + 1 pub/sub); Redisson is `Redisson.create(config)` with default settings and `RLock`; \
                the raw floor is EVALSHA through a Jedis `RedisClient` with the same pool size as lockkit (but a 30 s wait \
                for a pooled connection instead of 2 s: with 32 threads on one CPU the pool starves some threads for \
                seconds, and the floor must measure, not fail), of \
                `floor/acquire.lua` (`SET key owner NX PX 30000`, else return the TTL) and `floor/release.lua` \
                (compare-and-delete, then PUBLISH). The floor waits by retry-on-message: one pub/sub connection and thread \
                per client, a release message wakes one waiter of each client, which tries again (or after the TTL). \
                lockkit and Redisson take locks with the watchdog (`lock()` without a lease); the floor with a fixed 30 s lease.
                - **P1, P2** are JMH benchmarks (`LockLatencyBenchmark`), one fork per library and run, %d × %d ms warm-up and \
                %d × %d ms measurement; P1 in sample-time mode (p50/p99 of every lock+unlock pair), P2 throughput with 32 \
                threads, each on a name of its own.
                - **P3** runs 4 clients × 8 threads on one lock name for %d s after a %d s warm-up; each thread locks, bumps a \
                counter, unlocks and goes again at once. Hand-off is the time from the releasing thread's `unlock()` call to \
                the next holder's `lock()` return (System.nanoTime, one JVM); the longest wait is the longest `lock()` call. \
                A non-atomic counter bumped under the lock checks mutual exclusion (lost updates must be 0).
                - **P4** repeats P3 on the same clients with %s contenders (%d ms warm-up, %d ms measured each). Client \
                commands are counted with MONITOR between two ECHO markers: MONITOR shows each command as a client sent it \
                and the commands a script runs as `[0 lua]`, so it separates them exactly. `INFO commandstats` alone cannot: \
                Redis 7 counts script-internal calls there too (an HGET inside a script adds to `cmdstat_hget`), and \
                Redisson sends a plain `DEL` (of its unlock latch key) besides its scripts, which no list of \
                "commands a script cannot send" would catch. `commandstats` (reset at the window's start) gives the total \
                Redis executed instead (P3's "executed" row). MONITOR slows Redis, so P4's rates are not P3's.
                - **P5** holds %,d locks under each library's watchdog for %d s, lockkit and Redisson at the same time on two \
                Redis servers (both pinned like the first); the window starts once all are held. Client commands/s and \
                script calls/s are counted with MONITOR (light at this rate); Redis CPU comes from `INFO cpu`. Renewal ticks: lockkit's are the \
                calls of `LockProvider.renew` (counted by a forwarding provider; the factory renews every hold due within a \
                1 s window in one call); Redisson runs one renewal task per 10 s for all its locks. Round trips are counted on \
                the wire: a turn from writing to reading on one connection (a Jedis socket factory with counting streams for \
                lockkit, over the provider's default pool; a Netty handler at the head of each Redisson channel).
                - **P6** opens one client, holds the lock on the main thread, starts %,d platform threads that each lock, \
                unlock and end, and waits until all of them are parked. Extra platform threads are live threads that are \
                neither the waiters nor present in the baseline (taken after one uncontended lock+unlock on the fresh \
                client); connections are counted by client name (`CLIENT LIST`, `CLIENT LIST TYPE pubsub`). The drain time \
                runs from the holder's `unlock()` call to the last waiter's `unlock()` return; a run floods the lock %d \
                times on the same client (threads and connections are counted in the first) and reports the median drain.
                - Results are medians of the runs; the library order is rotated per run. Everything runs against one \
                local Redis over loopback, started through `lock-testkit`'s `RedisFixture` (`redis-server` on the PATH, \
                else the embedded binary), persistence off.
                """.formatted(
                        s.jmhWarmups(),
                        s.jmhWarmup().toMillis(),
                        s.jmhIterations(),
                        s.jmhIteration().toMillis(),
                        s.p3Measure().toSeconds(),
                        s.p3Warmup().toSeconds(),
                        s.p4Contenders().stream().map(String::valueOf).collect(Collectors.joining(", ")),
                        s.p4Warmup().toMillis(),
                        s.p4Measure().toMillis(),
                        s.p5Locks(),
                        s.p5Window().toSeconds(),
                        s.p6Waiters(),
                        WaiterFlood.DRAINS);
    }
}
