package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("a Redis that does not answer fails the start before any scheduled job runs, with a message that names"
        + " quarkus.lockkit.* keys")
@Tag("first-pass") // CI runs it in one of its two passes only: see .ci/run
class UnreachableRedisStartTest {

    /** A lockkit key not spelled the Quarkus way: "lockkit." not preceded by "quarkus." (or a word or dot). */
    static final Pattern PLAIN_KEY = Pattern.compile("(?<![\\w.])lockkit\\.[a-z]");

    /**
     * {@code message} without its list of unknown keys: what the build passes to the test JVM
     * ({@code -Dlockkit.excludedTags=…} on CI's command line, a {@code LOCKKIT_REDIS_SOURCES}
     * environment variable) is rightly listed there under the names it was given; the test's own typo
     * and its hint are asserted on their own.
     */
    static String withoutBuildProperties(String message) {
        int unknown = message.indexOf("Unknown keys are set");
        return unknown < 0 ? message : message.substring(0, unknown);
    }

    /** A server that accepts connections and never answers: the start-up check waits its whole timeout. */
    static final ServerSocket SILENT = silentServer();

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class, ScheduledJobs.class))
            .overrideConfigKey("quarkus.lockkit.redis.uri", "redis://127.0.0.1:" + SILENT.getLocalPort())
            // long enough for a scheduler started first to fire its every-second jobs meanwhile
            .overrideConfigKey("quarkus.lockkit.redis.timeout", "4s")
            .overrideConfigKey("quarkus.lockkit.redis.key-prefx", "mistyped")
            .setLogRecordPredicate(
                    record -> String.valueOf(record.getLoggerName()).startsWith("io.quarkus.scheduler")
                            || LogText.of(record).contains("DistributedLockFactory started")
                            || LogText.of(record).contains("key-prefx"))
            .assertException(failure -> {
                Throwable cause = failure;
                while (cause != null
                        && !(cause instanceof IllegalStateException
                                && String.valueOf(cause.getMessage()).contains("redis.uri"))) {
                    cause = cause.getCause();
                }
                assertThat(cause)
                        .as("an IllegalStateException naming the URI key in %s", failure)
                        .isNotNull();
                String message = String.valueOf(cause.getMessage());
                assertThat(message)
                        .contains("quarkus.lockkit.redis.uri = 'redis://127.0.0.1:" + SILENT.getLocalPort() + "'")
                        .contains("quarkus.lockkit.redis.timeout")
                        .contains("quarkus.lockkit.startup=lazy starts without it")
                        .contains("quarkus.lockkit.redis.key-prefx (did you mean quarkus.lockkit.redis.key-prefix?)");
                assertThat(message.split("Unknown keys are set", -1))
                        .as("the typo hints once")
                        .hasSize(2);
                assertThat(PLAIN_KEY.matcher(withoutBuildProperties(message)).find())
                        .as("a plain lockkit.* key in: %s", message)
                        .isFalse();
            })
            .assertLogRecords(records -> {
                assertThat(System.getProperty(ScheduledJobs.TICKED))
                        .as("the scheduler ran a job before the start failed")
                        .isNull();
                assertThat(records)
                        .filteredOn(record -> record.getLoggerName().startsWith("io.quarkus.scheduler")
                                && record.getLevel().intValue() >= Level.WARNING.intValue())
                        .map(UnreachableRedisStartTest::text)
                        .as("the scheduler's warnings and errors (a failed job's)")
                        .isEmpty();
                List<String> texts =
                        records.stream().map(UnreachableRedisStartTest::text).toList();
                assertThat(texts)
                        .as("the factory is not announced as started")
                        .noneMatch(text -> text.contains("DistributedLockFactory started"));
                assertThat(texts)
                        .as("the mistyped quarkus.lockkit.redis.key-prefx is warned about once (by Quarkus)")
                        .filteredOn(text -> text.contains("key-prefx"))
                        .singleElement()
                        .satisfies(text -> assertThat(text).contains("quarkus.lockkit.redis.key-prefx"));
            });

    @Test
    @DisplayName("the application never starts")
    void startFails() {
        throw new AssertionError("the start must fail");
    }

    private static String text(java.util.logging.LogRecord record) {
        return record.getLevel() + " " + record.getLoggerName() + ": " + LogText.of(record);
    }

    private static ServerSocket silentServer() {
        try {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            List<Socket> held = new CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(
                    () -> {
                        while (!server.isClosed()) {
                            try {
                                held.add(server.accept()); // kept open, never answered
                            } catch (IOException e) {
                                return;
                            }
                        }
                    },
                    "silent-redis");
            acceptor.setDaemon(true);
            acceptor.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
