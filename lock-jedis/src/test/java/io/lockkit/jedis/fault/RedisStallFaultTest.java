package io.lockkit.jedis.fault;

import static io.lockkit.jedis.fault.Faults.LEASE;
import static io.lockkit.jedis.fault.Faults.SCHEDULING_SLACK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockLostException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.support.Closer;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 2: Redis stalls (SIGSTOP) and comes back (SIGCONT). A stall longer than the lease costs the
 * holder its hold, which it must learn of by its own deadline, before anybody else can take the
 * lock; a shorter stall is ridden out.
 */
@Tag("fault")
@Tag("first-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("Fault: Redis stalled by SIGSTOP")
class RedisStallFaultTest {

    @RegisterExtension
    static final RedisExtension REDIS = Faults.localRedis();

    private final Closer closer = new Closer();
    private final Faults.Threads threads = new Faults.Threads();

    @AfterEach
    void cleanUp() throws Exception {
        Faults.resume(REDIS.server()); // harmless when running
        threads.close();
        closer.close();
    }

    private DistributedLockFactory client(CopyOnWriteArrayList<LockLostException> losses) {
        return closer.add(Faults.factory(Faults.provider(REDIS.server().uri()).build(), LEASE, losses::add));
    }

    @Test
    @DisplayName(
            "a stall longer than the lease: the holder learns of the loss by its deadline, and another client gets the lock only after it")
    void stallLongerThanTheLeaseIsReportedByTheDeadline() throws Exception {
        RedisServer redis = REDIS.server();
        String name = Faults.name("stall");
        CopyOnWriteArrayList<LockLostException> losses = new CopyOnWriteArrayList<>();
        AtomicLong listenerAt = new AtomicLong();
        DistributedLockFactory a =
                closer.add(Faults.factory(Faults.provider(redis.uri()).build(), LEASE, e -> {
                    listenerAt.compareAndSet(0, System.nanoTime());
                    losses.add(e);
                }));
        DistributedLockFactory b = client(new CopyOnWriteArrayList<>());

        LockHandle held = a.acquire(name, LockOptions.noWait());
        AtomicLong lostAt = new AtomicLong();
        held.lost().thenRun(() -> lostAt.compareAndSet(0, System.nanoTime()));
        // The client-side deadline only moves forward (renewals); the last one seen while valid is final.
        AtomicLong deadline = new AtomicLong(Long.MIN_VALUE);
        AtomicLong invalidAt = new AtomicLong();
        threads.start("deadline-sampler", () -> {
            while (true) {
                long t = System.nanoTime();
                Duration left = held.remainingLease();
                if (left.isZero()) {
                    invalidAt.set(System.nanoTime());
                    return;
                }
                deadline.accumulateAndGet(t + left.toNanos(), Math::max);
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        Thread.sleep(LEASE.toMillis() / 2); // past one renewal, so the stall meets a renewing holder

        Faults.stop(redis);
        long stoppedAt = System.nanoTime();
        AtomicReference<LockHandle> taken = new AtomicReference<>();
        AtomicLong takenAt = new AtomicLong();
        threads.start("contender", () -> {
            while (taken.get() == null && !Thread.currentThread().isInterrupted()) {
                try {
                    Optional<LockHandle> h = b.tryAcquire(name, LockOptions.waitAtMost(Duration.ofMillis(200)));
                    if (h.isPresent()) {
                        takenAt.set(System.nanoTime());
                        taken.set(h.get());
                    }
                } catch (BackendUnavailableException e) {
                    // Redis is stopped: keep trying, as an application would
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        // Stay stopped until a second after the holder's deadline: the server-side lease runs out too.
        await().atMost(Duration.ofSeconds(5)).until(() -> invalidAt.get() != 0);
        long stallEnd = deadline.get() + TimeUnit.SECONDS.toNanos(1);
        while (System.nanoTime() - stallEnd < 0) {
            Thread.sleep(10);
        }
        assertThat(taken.get())
                .as("nobody gets the lock while Redis is stopped")
                .isNull();
        Faults.resume(redis);
        long resumedAt = System.nanoTime();
        // Requests that timed out during the stall still run when Redis resumes: an acquisition the
        // contender gave up on may take the lock for an owner that no longer exists. Nobody renews
        // such an orphan, so it ends after one lease.
        Object orphan = redis.command("HGETALL", Faults.lockKey(name));
        await().atMost(LEASE.plus(Duration.ofSeconds(2))).until(() -> taken.get() != null);

        long d = deadline.get();
        System.out.printf(
                "stall: stopped %d ms before the deadline; isValid() false %+d ms, lost() %+d ms, listener %+d ms"
                        + " after it; the other client acquired %d ms after the resume (lock hash at the resume: %s)%n",
                TimeUnit.NANOSECONDS.toMillis(d - stoppedAt),
                TimeUnit.NANOSECONDS.toMillis(invalidAt.get() - d),
                TimeUnit.NANOSECONDS.toMillis(lostAt.get() - d),
                TimeUnit.NANOSECONDS.toMillis(listenerAt.get() - d),
                TimeUnit.NANOSECONDS.toMillis(takenAt.get() - resumedAt),
                orphan);
        assertThat(held.isValid()).isFalse();
        assertThat(invalidAt.get() - d)
                .as("isValid() turns false at the deadline (ns late, as the sampler sees it)")
                .isLessThanOrEqualTo(SCHEDULING_SLACK.toNanos());
        assertThat(lostAt.get()).as("lost() completed").isNotZero();
        assertThat(lostAt.get() - d)
                .as("lost() completes by the deadline (ns late)")
                .isLessThanOrEqualTo(SCHEDULING_SLACK.toNanos());
        assertThat(listenerAt.get() - d)
                .as("the listener is called by the deadline (ns late)")
                .isLessThanOrEqualTo(SCHEDULING_SLACK.toNanos());
        assertThat(losses)
                .singleElement()
                .satisfies(e -> assertThat(e.lockName()).isEqualTo(name));
        assertThat(takenAt.get())
                .as("the other client acquires after the holder's deadline")
                .isGreaterThan(d);
        assertThat(Math.min(lostAt.get(), d))
                .as("the two valid holds do not overlap")
                .isLessThan(takenAt.get());
        assertThat(taken.get().fencingToken()).isGreaterThan(held.fencingToken());
        assertThatThrownBy(held::release).isInstanceOf(LockLostException.class);
        taken.get().release();
    }

    @Test
    @DisplayName("a stall shorter than the lease is ridden out: the hold stays valid and is released cleanly")
    void stallShorterThanTheLeaseIsRiddenOut() throws Exception {
        RedisServer redis = REDIS.server();
        String name = Faults.name("short-stall");
        CopyOnWriteArrayList<LockLostException> losses = new CopyOnWriteArrayList<>();
        DistributedLockFactory a = client(losses);
        LockHandle held = a.acquire(name, LockOptions.noWait());
        Thread.sleep(LEASE.toMillis() / 2);
        Faults.stop(redis);
        Thread.sleep(700);
        Faults.resume(redis);
        Thread.sleep(LEASE.toMillis() * 2); // several renewals later
        assertThat(losses).isEmpty();
        assertThat(held.isValid()).isTrue();
        held.release();
        assertThat(Faults.held(redis, name)).isFalse();
    }
}
