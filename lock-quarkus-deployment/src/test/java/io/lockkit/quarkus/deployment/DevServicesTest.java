package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("Dev Services: with no Redis configured, a test-mode application gets one without a container runtime,"
        + " and the log says so in one line, without errors; the factory's start is one line too")
class DevServicesTest {

    /**
     * The URI the application read, recorded by the test for the log assertion: a system property,
     * since the test instance and the assertion live in different class loaders.
     */
    static final String APPLICATION_URI = "test.lockkit.dev-services-uri";

    /** The loggers of what runs while Dev Services start the Redis. */
    static final List<String> DEV_SERVICES_LOGGERS =
            List.of("io.lockkit.quarkus.deployment", "io.lockkit.testkit", "org.testcontainers");

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            // what Dev Services log while they choose and start the server: lockkit's lines and Testcontainers'
            .setLogRecordPredicate(record -> record.getLevel().intValue() >= Level.INFO.intValue()
                    && (DEV_SERVICES_LOGGERS.stream().anyMatch(String.valueOf(record.getLoggerName())::startsWith)
                            || LogText.of(record).contains("DistributedLockFactory")))
            // checked after the tests: no warning or error (Testcontainers' "Could not find a valid Docker
            // environment" among them), and one line saying where the server came from, why not from a
            // container, and where it is; and the factory's start in one INFO line, not two
            .assertLogRecords(records -> {
                assertThat(records)
                        .filteredOn(record -> record.getLevel().intValue() >= Level.WARNING.intValue())
                        .map(record -> record.getLevel() + " " + record.getLoggerName() + ": " + LogText.of(record))
                        .as("warnings and errors while Dev Services chose the Redis")
                        .isEmpty();
                assertThat(records)
                        .map(LogText::of)
                        .filteredOn(text -> text.contains("DistributedLockFactory"))
                        .as("the factory's start, said once")
                        .singleElement()
                        .asString()
                        .contains("DistributedLockFactory started as client");
                assertThat(records)
                        .filteredOn(
                                record -> DEV_SERVICES_LOGGERS.stream().anyMatch(record.getLoggerName()::startsWith))
                        .filteredOn(record -> record.getLoggerName().startsWith("io.lockkit"))
                        .map(LogText::of)
                        // the fixture says once per JVM where a LOCKKIT_REDIS_SOURCES of the build points it
                        .filteredOn(text -> !text.contains("(environment variable LOCKKIT_REDIS_SOURCES)"))
                        .singleElement()
                        .satisfies(text -> assertThat(text)
                                .startsWith("lockkit Dev Services: Redis ")
                                .contains("from " + expectedSource())
                                .contains("not a container: no container runtime")
                                .contains(" at " + System.clearProperty(APPLICATION_URI) + " "));
            });

    @Inject
    Counter counter;

    /** With the default sources and no container runtime: the PATH's redis-server, else the bundled one. */
    static String expectedSource() {
        String path = System.getenv("PATH");
        boolean onPath = path != null
                && List.of(path.split(File.pathSeparator)).stream()
                        .map(dir -> Path.of(dir, "redis-server"))
                        .anyMatch(Files::isExecutable);
        return onPath ? "the redis-server on the PATH" : "the redis-server binary bundled";
    }

    @Test
    @DisplayName("the Dev Services Redis serves @Locked: concurrent callers never overlap")
    void lockedMethodsRunOnTheDevServicesRedis() throws Exception {
        String uri = ConfigProvider.getConfig().getValue("lockkit.redis.uri", String.class);
        assertThat(uri).startsWith("redis://127.0.0.1:");
        System.setProperty(APPLICATION_URI, uri);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                calls.add(pool.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        counter.increment("dev");
                    }
                }));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(counter.mostInside()).as("callers inside at once").isEqualTo(1);
        assertThat(counter.increment("dev")).isEqualTo(41);
    }
}
