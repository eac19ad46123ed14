package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.BackendUnavailableException;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import jakarta.enterprise.inject.se.SeContainer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A real Redis stopped and started again under an application whose {@code @Locked} methods keep
 * being called, as a scheduler calls a job: the log gets one warning when the outage begins and one
 * line when it ends, however many calls fail in between, and {@code whenBusy = SKIP} methods are
 * skipped rather than throwing.
 */
@DisplayName("@Locked calls while the backend is down")
class OutageLogTest {

    /** A Redis process of the test's own: the tests stop it and start it again on its port. */
    private static final RedisFixture FIXTURE =
            RedisFixture.builder().sources(Source.PATH, Source.EMBEDDED).build();

    /** What lockkit logged (any logger under io.lockkit), DEBUG included. */
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();

    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLoggerName() != null && record.getLoggerName().startsWith("io.lockkit")) {
                logged.add(record);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    /** Held, so the level set on it stays: JUL keeps loggers weakly. */
    private final Logger outageLogger = Logger.getLogger("io.lockkit.cdi.Locked");

    private final Logger lockkitLogger = Logger.getLogger("io.lockkit");
    private Level previousLevel;
    private RedisServer redis;
    private SeContainer container;

    @BeforeEach
    void start() {
        previousLevel = outageLogger.getLevel();
        outageLogger.setLevel(Level.ALL);
        lockkitLogger.addHandler(capture);
        redis = FIXTURE.start();
        Lockkit.useRedis(redis, "lockkit.redis.timeout", "1s");
        container = Lockkit.start("outage-log", BusyWork.class);
    }

    @AfterEach
    void stop() {
        container.close();
        redis.close();
        Lockkit.clearConfig();
        lockkitLogger.removeHandler(capture);
        outageLogger.setLevel(previousLevel);
    }

    private List<LogRecord> outageLines(Level level) {
        return logged.stream()
                .filter(r -> r.getLoggerName().equals("io.lockkit.cdi.Locked") && r.getLevel() == level)
                .toList();
    }

    /** lockkit's warnings and errors: logger, level and message. */
    private List<String> warningsOrWorse() {
        return logged.stream()
                .filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                .map(r -> r.getLoggerName() + " " + r.getLevel() + " " + r.getMessage())
                .toList();
    }

    private void restartRedis(int port) {
        redis = FIXTURE.startLocal(port, List.of());
    }

    @Test
    @DisplayName(
            "SKIP methods are skipped, the others throw BackendUnavailableException, and nothing runs without its lock")
    void skipMethodsAreSkippedAndOthersFail() throws Exception {
        BusyWork work = container.select(BusyWork.class).get();
        work.skipVoid();
        assertThat(work.ran()).as("with Redis up the job runs").isEqualTo(1);
        int port = redis.port();
        redis.stop();

        for (int i = 0; i < 5; i++) {
            work.skipVoid();
            assertThat(work.skipValue()).isNull();
            assertThat(work.skipOptional()).isEmpty();
            assertThat(work.skipStage().toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isNull();
            assertThat(work.skipFutureOfOptional().get(10, TimeUnit.SECONDS)).isEmpty();
            assertThatThrownBy(work::tryOnce).isInstanceOf(BackendUnavailableException.class);
        }
        assertThat(work.ran()).as("no method ran during the outage").isEqualTo(1);

        restartRedis(port);
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            work.skipVoid();
            assertThat(work.ran()).isEqualTo(2);
        });
    }

    @Test
    @DisplayName(
            "each outage is logged once when it begins, with its root cause, and once when it ends, with a summary")
    void eachOutageIsLoggedOnceWhenItBeginsAndOnceWhenItEnds() throws Exception {
        BusyWork work = container.select(BusyWork.class).get();
        work.skipVoid();
        int port = redis.port();
        for (int outage = 1; outage <= 2; outage++) {
            redis.stop();
            int skipped = 0;
            for (int call = 0; call < 30; call++) { // a job scheduled every period, on and on
                work.skipVoid();
                skipped++;
            }
            int failed = 0;
            for (int call = 0; call < 4; call++) {
                assertThatThrownBy(work::tryOnce).isInstanceOf(BackendUnavailableException.class);
                failed++;
            }
            assertThat(outageLines(Level.WARNING))
                    .as("outage %d: warnings", outage)
                    .hasSize(outage);
            assertThat(outageLines(Level.FINE)).as("a DEBUG line per call").hasSizeGreaterThanOrEqualTo(34 * outage);
            assertThat(outageLines(Level.INFO)).as("no end line yet").hasSize(outage - 1);

            restartRedis(port);
            await().atMost(Duration.ofSeconds(15)).until(() -> {
                int before = work.ran();
                work.skipVoid();
                return work.ran() > before;
            });
            List<LogRecord> ends = outageLines(Level.INFO);
            assertThat(ends).as("outage %d: end lines", outage).hasSize(outage);
            Matcher summary = Pattern.compile("back after (\\d+) ms; during the outage (\\d+) call\\(s\\) failed and"
                            + " (\\d+) were skipped")
                    .matcher(ends.get(outage - 1).getMessage());
            assertThat(summary.find()).as(ends.get(outage - 1).getMessage()).isTrue();
            assertThat(Long.parseLong(summary.group(1))).isNotNegative();
            assertThat(Integer.parseInt(summary.group(2))).isEqualTo(failed);
            assertThat(Integer.parseInt(summary.group(3)))
                    .as("the calls skipped, and those of the wait for Redis to answer")
                    .isGreaterThanOrEqualTo(skipped);
        }

        LogRecord first = outageLines(Level.WARNING).get(0);
        String line = first.getMessage().lines().findFirst().orElseThrow();
        System.out.println("outage warning: " + line);
        System.out.println("outage end: " + outageLines(Level.INFO).get(0).getMessage());
        assertThat(first.getThrown()).as("no stack trace in the warning").isNull();
        assertThat(line)
                .contains("the lock backend is unavailable to @Locked calls")
                .contains(Integer.toString(port))
                .containsIgnoringCase("refused")
                .contains("BusyWork.skipVoid");
        assertThat(warningsOrWorse())
                .as("lockkit's warnings and errors over two outages of 34 calls each: the two start lines")
                .hasSize(2);
    }
}
