package io.lockkit.cdi.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.BackendUnavailableException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("BackendOutage: one warning per outage, one line when it ends")
class BackendOutageTest {

    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    /** Held, so the level set on it stays: JUL keeps loggers weakly. */
    private final Logger logger = Logger.getLogger(BackendOutage.LOGGER);

    private Level previousLevel;

    @BeforeEach
    void capture() {
        previousLevel = logger.getLevel();
        logger.setLevel(Level.ALL);
        logger.addHandler(capture);
    }

    @AfterEach
    void release() {
        logger.removeHandler(capture);
        logger.setLevel(previousLevel);
    }

    private List<String> lines(Level level) {
        return logged.stream()
                .filter(r -> r.getLevel() == level)
                .map(LogRecord::getMessage)
                .toList();
    }

    private static BackendUnavailableException refused() {
        BackendUnavailableException e = new BackendUnavailableException(
                "report", "Redis could not be reached: Failed to connect to 127.0.0.1:6390.", null);
        e.addSuppressed(new ConnectException("Connection refused"));
        return e;
    }

    @Test
    @DisplayName("calls failing on many threads at once begin one outage, and its end counts them all")
    void manyThreadsFailingAtOnceBeginOneOutage() throws Exception {
        BackendOutage outage = new BackendOutage();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                boolean skipped = t % 2 == 0;
                calls.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 100; i++) {
                        outage.failed(BackendOutage.attemptBegins(), "Job.run()", "report", refused(), skipped);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(lines(Level.WARNING)).hasSize(1);
        assertThat(lines(Level.FINE)).hasSize(800);
        assertThat(outage.inProgress()).isTrue();

        outage.succeeded();
        outage.succeeded();
        assertThat(outage.inProgress()).isFalse();
        assertThat(lines(Level.INFO)).singleElement().asString().contains("400 call(s) failed and 400 were skipped");
    }

    @Test
    @DisplayName("a call begun before the outage ended and failing after it starts no new outage; a later one does")
    void aCallBegunBeforeTheRecoveryStartsNoNewOutage() {
        BackendOutage outage = new BackendOutage();
        long before = BackendOutage.attemptBegins();
        outage.failed(before, "Job.run()", "report", refused(), true);
        outage.succeeded();
        outage.failed(before, "Job.run()", "report", refused(), true); // a timeout that straddled the recovery
        assertThat(lines(Level.WARNING)).hasSize(1);
        assertThat(outage.inProgress()).isFalse();

        outage.failed(BackendOutage.attemptBegins(), "Job.run()", "report", refused(), false);
        assertThat(lines(Level.WARNING)).hasSize(2);
        assertThat(outage.inProgress()).isTrue();
    }

    @Test
    @DisplayName("the warning's line carries the failure and its root cause, a suppressed one too, once")
    void theWarningNamesTheRootCauseOnce() {
        new BackendOutage().failed(BackendOutage.attemptBegins(), "Job.run()", "report", refused(), true);
        assertThat(lines(Level.WARNING))
                .singleElement()
                .asString()
                .contains("Failed to connect to 127.0.0.1:6390.")
                .contains("(root cause: java.net.ConnectException: Connection refused)")
                .contains("(first: Job.run())")
                .doesNotContain("\n");
        BackendUnavailableException named = new BackendUnavailableException(
                "report",
                "Redis could not be reached: java.net.UnknownHostException: redis",
                new IllegalStateException("wrapped", new java.net.UnknownHostException("redis")));
        assertThat(BackendOutage.describe(named))
                .as("a message that already names the root cause is left as it is")
                .isEqualTo("Redis could not be reached: java.net.UnknownHostException: redis (lock 'report')");
    }
}
