package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An outage of renewals logs one warning with its cause, not a stack trace per retry, and one line when it is over. */
class RenewalFailureLogTest {

    private LogCapture log;

    @BeforeEach
    void listen() {
        log = new LogCapture(LeaseWatchdog.class);
    }

    @AfterEach
    void stopListening() {
        log.close();
    }

    @Test
    void failedRenewalsLogOneWarningThenDebugLinesThenOneLineWhenTheyWorkAgain() throws Exception {
        AtomicInteger failuresLeft = new AtomicInteger(4);
        AtomicInteger calls = new AtomicInteger();
        ForwardingLockProvider failing = new ForwardingLockProvider(new LocalLockProvider()) {
            @Override
            public List<Renewal> renew(List<Renewal> renewals) {
                calls.incrementAndGet();
                if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    throw new BackendUnavailableException(renewals.get(0).name(), "renewal refused by the test", null);
                }
                return super.renew(renewals);
            }
        };
        // Renewal due at 1 s, retried every 250 ms: four failures end by about 2 s, well inside the 3 s lease.
        try (DistributedLockFactory locks = DistributedLockFactory.builder(failing)
                        .defaultOptions(LockOptions.builder()
                                .watchdogLease(Duration.ofSeconds(3))
                                .build())
                        .build();
                LockHandle hold = locks.acquire("log:renewals", LockOptions.noWait())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() >= 5 && failuresLeft.get() == 0);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> atLevel(Level.INFO).size() == 1);
            assertThat(hold.isValid()).isTrue();
        }

        List<LogRecord> warnings = atLevel(Level.WARNING);
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0).getMessage()).startsWith("renewing 1 lock lease(s) failed");
        assertThat(warnings.get(0).getThrown()).isInstanceOf(BackendUnavailableException.class);
        assertThat(atLevel(Level.FINE))
                .extracting(LogRecord::getMessage)
                .containsExactly(
                        "renewing 1 lock lease(s) failed again (2 in a row)",
                        "renewing 1 lock lease(s) failed again (3 in a row)",
                        "renewing 1 lock lease(s) failed again (4 in a row)");
        assertThat(atLevel(Level.INFO).get(0).getMessage())
                .startsWith("lock lease renewals succeed again after 4 failed call(s) in ");
    }

    private List<LogRecord> atLevel(Level level) {
        return log.atLevel(level);
    }
}
