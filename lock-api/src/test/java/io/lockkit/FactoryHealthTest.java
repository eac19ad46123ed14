package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.HealthReport.WatchdogStatus;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LockOperations#health(Duration)}: the probe, its time bound, the watchdog's state and the loss count. */
class FactoryHealthTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
    }

    private <T extends AutoCloseable> T closing(T c) {
        closeAfter.add(c);
        return c;
    }

    /** A provider that counts probe calls, and can be told to block them or to fail them. */
    static final class ProbedProvider extends ForwardingLockProvider {
        final AtomicInteger inspections = new AtomicInteger();
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger releases = new AtomicInteger();
        volatile CountDownLatch blockUntil = new CountDownLatch(0);
        volatile RuntimeException failure;
        private final Set<Capability> capabilities;

        ProbedProvider(Set<Capability> capabilities) {
            super(new LocalLockProvider());
            this.capabilities = capabilities;
        }

        @Override
        public Optional<LockState> inspect(String name) {
            inspections.incrementAndGet();
            answerSlowlyOrFail();
            return super.inspect(name);
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            if (request.name().equals(FactoryHealth.PROBE_NAME)) {
                attempts.incrementAndGet();
                answerSlowlyOrFail();
            }
            return super.tryAcquire(request);
        }

        @Override
        public Release release(String name, String owner) {
            if (name.equals(FactoryHealth.PROBE_NAME)) {
                releases.incrementAndGet();
            }
            return super.release(name, owner);
        }

        @Override
        public Set<Capability> capabilities() {
            return capabilities;
        }

        private void answerSlowlyOrFail() {
            try {
                blockUntil.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            RuntimeException f = failure;
            if (f != null) {
                throw f;
            }
        }

        @Override
        public String toString() {
            return "probed in-JVM provider";
        }
    }

    @Test
    void idleFactoryIsUpWithTheProbeLatencyAndNoHolds() {
        ProbedProvider provider = new ProbedProvider(EnumSet.allOf(LockProvider.Capability.class));
        DistributedLockFactory locks = closing(DistributedLockFactory.create(provider));

        HealthReport report = locks.operations().health(TIMEOUT);

        assertThat(report.isUp()).as("%s", report).isTrue();
        assertThat(report.backend()).isEqualTo("probed in-JVM provider");
        assertThat(report.probeLatency()).get().satisfies(d -> assertThat(d).isLessThan(TIMEOUT));
        assertThat(report.failure()).isEmpty();
        assertThat(report.activeHolds()).isZero();
        assertThat(report.watchdog()).isEqualTo(WatchdogStatus.IDLE);
        assertThat(report.lossesInLastMinute()).isZero();
        assertThat(provider.inspections)
                .as("one read-only question when the provider can inspect")
                .hasValue(1);
        assertThat(provider.attempts).hasValue(0);
        assertThat(report.toString()).startsWith("UP backend=probed in-JVM provider probeLatency=");
    }

    @Test
    void providerWithoutInspectionIsProbedByTryLockAndRelease() {
        ProbedProvider provider = new ProbedProvider(EnumSet.noneOf(LockProvider.Capability.class));
        DistributedLockFactory locks = closing(DistributedLockFactory.create(provider));

        assertThat(locks.operations().health(TIMEOUT).isUp()).isTrue();

        assertThat(provider.inspections).hasValue(0);
        assertThat(provider.attempts).hasValue(1);
        assertThat(provider.releases).as("the probe lock is given back").hasValue(1);
    }

    @Test
    void probeLockHeldElsewhereStillShowsTheBackendAnswers() throws Exception {
        ProbedProvider provider = new ProbedProvider(EnumSet.noneOf(LockProvider.Capability.class));
        DistributedLockFactory locks = closing(DistributedLockFactory.create(provider));
        try (LockHandle other = locks.acquire(FactoryHealth.PROBE_NAME, LockOptions.noWait())) {
            HealthReport report = locks.operations().health(TIMEOUT);
            assertThat(report.isUp()).as("%s", report).isTrue();
            assertThat(report.activeHolds()).isEqualTo(1);
            assertThat(report.watchdog()).isEqualTo(WatchdogStatus.RUNNING);
            assertThat(provider.releases)
                    .as("nothing to release: the probe did not get the lock")
                    .hasValue(0);
            assertThat(other.isValid()).isTrue();
        }
    }

    @Test
    void failingBackendIsDownWithTheReason() {
        ProbedProvider provider = new ProbedProvider(EnumSet.allOf(LockProvider.Capability.class));
        DistributedLockFactory locks = closing(DistributedLockFactory.create(provider));
        provider.failure = new BackendUnavailableException(FactoryHealth.PROBE_NAME, "connection refused", null);

        HealthReport report = locks.operations().health(TIMEOUT);

        assertThat(report.isUp()).isFalse();
        assertThat(report.probeLatency()).isEmpty();
        assertThat(report.failure())
                .get()
                .asString()
                .contains("the backend did not answer")
                .contains("connection refused");
        assertThat(report.toString()).startsWith("DOWN ");

        provider.failure = null;
        assertThat(locks.operations().health(TIMEOUT).isUp())
                .as("up again once the backend answers")
                .isTrue();
    }

    @Test
    void stalledBackendIsDownWithinTheTimeoutAndOnlyOneProbeWaitsForIt() {
        ProbedProvider provider = new ProbedProvider(EnumSet.allOf(LockProvider.Capability.class));
        DistributedLockFactory locks = closing(DistributedLockFactory.create(provider));
        CountDownLatch stall = new CountDownLatch(1);
        provider.blockUntil = stall;
        try {
            long start = System.nanoTime();
            HealthReport report = locks.operations().health(Duration.ofMillis(200));
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertThat(report.isUp()).isFalse();
            assertThat(report.failure()).get().asString().isEqualTo("the backend did not answer within PT0.2S");
            assertThat(tookMillis)
                    .as("the check returns at its timeout, not when the backend answers")
                    .isGreaterThanOrEqualTo(190)
                    .isLessThan(3_000);

            assertThat(locks.operations().health(Duration.ofMillis(50)).isUp()).isFalse();
            assertThat(provider.inspections)
                    .as("a check while the probe is stuck waits for it, not a new one")
                    .hasValue(1);
        } finally {
            stall.countDown();
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> locks.operations().health(TIMEOUT).isUp());
        assertThat(provider.inspections).hasValueGreaterThanOrEqualTo(2);
    }

    @Test
    void closedFactoryIsDownAndStoppedWithoutAskingTheBackend() {
        ProbedProvider provider = new ProbedProvider(EnumSet.allOf(LockProvider.Capability.class));
        DistributedLockFactory locks = DistributedLockFactory.create(provider);
        locks.close();

        HealthReport report = locks.operations().health(TIMEOUT);

        assertThat(report.isUp()).isFalse();
        assertThat(report.watchdog()).isEqualTo(WatchdogStatus.STOPPED);
        assertThat(report.failure()).hasValue("the lock factory is closed");
        assertThat(provider.inspections).hasValue(0);
    }

    @Test
    void overdueWatchdogIsLateAndDownUntilItRuns() throws Exception {
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        DistributedLockFactory locks = closing(DistributedLockFactory.builder(new LocalLockProvider())
                .ticker(ticker)
                .scheduler(scheduler)
                .build());
        LockHandle hold = locks.acquire("report", LockOptions.noWait()); // watchdog: 30 s lease, renewed every 10 s
        assertThat(locks.operations().health(TIMEOUT).watchdog()).isEqualTo(WatchdogStatus.RUNNING);

        // The renewal falls due at 10 s; nothing runs it (a blocked scheduler). Late by one renewal
        // interval is still tolerated; later than that is not.
        ticker.advance(Duration.ofSeconds(20));
        assertThat(locks.operations().health(TIMEOUT).watchdog()).isEqualTo(WatchdogStatus.RUNNING);
        ticker.advance(Duration.ofSeconds(1));
        HealthReport late = locks.operations().health(TIMEOUT);
        assertThat(late.watchdog()).isEqualTo(WatchdogStatus.LATE);
        assertThat(late.isUp()).isFalse();
        assertThat(late.probeLatency()).as("the backend itself answered").isPresent();
        assertThat(late.failure()).get().asString().contains("lease watchdog is 11000 ms behind schedule");

        scheduler.advance(Duration.ZERO); // the scheduler catches up: renewal sent and answered
        HealthReport caughtUp = locks.operations().health(TIMEOUT);
        assertThat(caughtUp.watchdog()).as("%s", caughtUp).isEqualTo(WatchdogStatus.RUNNING);
        assertThat(caughtUp.isUp()).isTrue();
        assertThat(hold.isValid()).isTrue();
    }

    @Test
    void shutDownSchedulerStopsTheWatchdog() {
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        DistributedLockFactory locks = closing(DistributedLockFactory.builder(new LocalLockProvider())
                .ticker(ticker)
                .scheduler(scheduler)
                .build());
        scheduler.shutdown();

        HealthReport report = locks.operations().health(TIMEOUT);

        assertThat(report.watchdog()).isEqualTo(WatchdogStatus.STOPPED);
        assertThat(report.isUp()).isFalse();
        assertThat(report.failure()).hasValue("the scheduler that renews leases was shut down");
    }

    @Test
    void lossesAreCountedForAMinuteButNotReleasesByClose() throws Exception {
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        DistributedLockFactory locks = DistributedLockFactory.builder(new LocalLockProvider())
                .ticker(ticker)
                .scheduler(scheduler)
                .build();
        locks.acquire("a", CoreTestSupport.lease(Duration.ofSeconds(1)));
        locks.acquire("b", CoreTestSupport.lease(Duration.ofSeconds(1)));
        LockHandle kept = locks.acquire("c", LockOptions.noWait());
        assertThat(locks.operations().health(TIMEOUT).activeHolds()).isEqualTo(3);

        scheduler.advance(Duration.ofSeconds(2)); // both leases run out on the client's clock
        HealthReport afterLoss = locks.operations().health(TIMEOUT);
        assertThat(afterLoss.lossesInLastMinute()).isEqualTo(2);
        assertThat(afterLoss.activeHolds()).isEqualTo(1);
        assertThat(afterLoss.isUp())
                .as("losses alone do not make the factory down")
                .isTrue();

        ticker.advance(Duration.ofSeconds(57));
        assertThat(locks.operations().health(TIMEOUT).lossesInLastMinute())
                .as("59 s later")
                .isEqualTo(2);
        ticker.advance(Duration.ofSeconds(2));
        assertThat(locks.operations().health(TIMEOUT).lossesInLastMinute())
                .as("61 s later")
                .isZero();

        locks.close();
        assertThat(kept.isValid()).isFalse();
        assertThat(locks.operations().health(TIMEOUT).lossesInLastMinute())
                .as("a release by close is no loss")
                .isZero();
    }

    @Test
    void lossWindowCountsPerSecondOverSixtySeconds() {
        LossWindow window = new LossWindow();
        long second = TimeUnit.SECONDS.toNanos(1);
        long t0 = -5 * second; // a ticker may be negative
        window.record(t0);
        window.record(t0 + second / 2);
        window.record(t0 + 30 * second);
        assertThat(window.lastMinute(t0)).isEqualTo(2);
        assertThat(window.lastMinute(t0 + 59 * second)).isEqualTo(3);
        assertThat(window.lastMinute(t0 + 60 * second)).isEqualTo(1);
        window.record(t0 + 60 * second); // same bucket as t0, a minute later: starts afresh
        assertThat(window.lastMinute(t0 + 60 * second)).isEqualTo(2);
        assertThat(window.lastMinute(t0 + 200 * second)).isZero();
        assertThat(window.lastMinute(t0 - 10 * second))
                .as("nothing is counted before it happened")
                .isZero();
    }

    @Test
    void readmeSnippetReportsNothingForAHealthyFactory() {
        DistributedLockFactory locks = closing(DistributedLockFactory.create(new LocalLockProvider()));
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            // readme-health:begin
            HealthReport health = locks.operations().health(Duration.ofMillis(500));
            if (!health.isUp()) {
                System.err.println("locks unavailable: " + health.failure().orElseThrow());
            }
            // readme-health:end
        } finally {
            System.setErr(err);
        }
        assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void probeTimeoutMustBePositive() {
        DistributedLockFactory locks = closing(DistributedLockFactory.create(new LocalLockProvider()));
        for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofMillis(-1)}) {
            assertThatThrownBy(() -> locks.operations().health(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("probeTimeout");
        }
    }
}
