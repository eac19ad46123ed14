package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.cdi.DistributedBulkhead;
import io.lockkit.cdi.Locked;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.NonBlocking;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName(
        "a @NonBlocking @Locked or @DistributedBulkhead method that waits for its hold fails the build, naming the method")
class NonBlockingLockedTest {

    /** Scheduled jobs (entry points, where Quarkus honours @NonBlocking): one misused, two fine. */
    @ApplicationScoped
    public static class Jobs {

        @Scheduled(every = "1h")
        @NonBlocking
        @Locked("blocking")
        void waitsOnTheEventLoop() {}

        @Scheduled(every = "1h")
        @NonBlocking
        @Locked("async")
        CompletionStage<Void> waitsWithoutBlocking() {
            return CompletableFuture.completedFuture(null);
        }

        @Scheduled(every = "1h")
        @Locked("worker")
        void runsOnAWorker() {}

        @Scheduled(every = "1h")
        @NonBlocking
        @DistributedBulkhead(value = "exports", capacity = 2, waitTime = 5)
        void waitsForPermitsOnTheEventLoop() {}
    }

    /** @NonBlocking on the class: its jobs run on the event loop. */
    @ApplicationScoped
    @NonBlocking
    public static class NonBlockingJobs {

        @Scheduled(every = "1h")
        @Locked("class")
        void alsoWaitsOnTheEventLoop() {}
    }

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Jobs.class, NonBlockingJobs.class))
            .overrideConfigKey("quarkus.lockkit.startup", "lazy")
            .assertException(failure -> assertThat(messages(failure))
                    .contains("lockkit: @Locked method")
                    .contains("Jobs.waitsOnTheEventLoop() is @NonBlocking")
                    .contains("NonBlockingJobs.alsoWaitsOnTheEventLoop() is @NonBlocking")
                    .contains("lockkit: @DistributedBulkhead method")
                    .contains("Jobs.waitsForPermitsOnTheEventLoop() is @NonBlocking")
                    .doesNotContain("waitsWithoutBlocking() is")
                    .doesNotContain("runsOnAWorker"));

    @Test
    @DisplayName("the build fails")
    void buildFails() {
        throw new AssertionError("the build must fail");
    }

    /** The messages of {@code failure}, its causes and their suppressed exceptions. */
    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t).append('\n');
            for (Throwable suppressed : t.getSuppressed()) {
                all.append(messages(suppressed));
            }
        }
        return all.toString();
    }
}
