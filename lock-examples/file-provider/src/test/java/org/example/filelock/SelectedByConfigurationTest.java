package org.example.filelock;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.spi.LockProvider;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.enterprise.inject.se.SeContainerInitializer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A Weld application selects this provider with configuration only: lockkit.provider=file. */
class SelectedByConfigurationTest {

    @TempDir
    Path directory;

    @AfterEach
    void clear() {
        System.clearProperty("lockkit.provider");
        System.clearProperty("lockkit.file.directory");
    }

    @Test
    void aLockedMethodHoldsItsLockInTheDirectory() throws Exception {
        System.setProperty("lockkit.provider", "file");
        System.setProperty("lockkit.file.directory", directory.toString());
        try (SeContainer container =
                        SeContainerInitializer.newInstance().addBeanClasses(Reports.class).initialize();
                LockProvider observer = FileLockProvider.open(directory)) {
            Reports reports = container.select(Reports.class).get();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return reports.run("2026-11-26", started, finish);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            // Another process would see the hold in the lock file: so does a second provider here.
            assertThat(observer.inspect("report:2026-11-26")).isPresent();
            assertThat(reports.run("2026-11-26", new CountDownLatch(1), new CountDownLatch(0)))
                    .as("a second run while the first holds the lock is skipped")
                    .isNull();
            finish.countDown();
            assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
            assertThat(observer.inspect("report:2026-11-26")).isEmpty();
        }
    }
}
