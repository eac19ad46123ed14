package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.cdi.DistributedBulkhead;
import io.lockkit.cdi.LockMode;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
@DisplayName("@Locked(mode = READ/WRITE) and @DistributedBulkhead on Uni methods, called on event loops")
class ReactiveModesTest {

    /** Readers, a writer and a bulkhead of capacity 2, each holding until the Uni it is given ends. */
    @ApplicationScoped
    public static class Prices {
        @Locked(value = "prices", mode = LockMode.READ, waitTime = 10)
        public Uni<String> read(Uni<String> until) {
            return until;
        }

        @Locked(value = "prices", mode = LockMode.WRITE, waitTime = 0)
        public Uni<String> write() {
            return Uni.createFrom().item("written");
        }

        @DistributedBulkhead(value = "pricing-api", capacity = 2, waitTime = 10)
        public Uni<String> quote(Uni<String> until) {
            return until;
        }

        @DistributedBulkhead(value = "pricing-api", capacity = 2, whenBusy = WhenBusy.SKIP)
        public Uni<String> quoteOrSkip() {
            return Uni.createFrom().item("quoted");
        }
    }

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Prices.class))
            .overrideConfigKey("quarkus.lockkit.devservices.sources", "path,embedded");

    @Inject
    Prices prices;

    @Inject
    Vertx vertx;

    @Inject
    DistributedLockFactory locks;

    @Test
    @DisplayName("two readers hold at once while a writer's Uni fails; the writer runs once they end")
    void readersShareWriterWaits() throws Exception {
        CompletableFuture<String> end1 = new CompletableFuture<>();
        CompletableFuture<String> end2 = new CompletableFuture<>();
        CompletableFuture<String> reader1 =
                subscribeOnLoop(() -> prices.read(Uni.createFrom().completionStage(end1)));
        CompletableFuture<String> reader2 =
                subscribeOnLoop(() -> prices.read(Uni.createFrom().completionStage(end2)));
        awaitHeld(() -> locks.getReadWriteLock("prices").writeLock().isLocked());
        assertThat(failureOf(subscribeOnLoop(prices::write))).isInstanceOf(LockNotAcquiredException.class);
        end1.complete("one");
        end2.complete("two");
        assertThat(reader1.get(20, TimeUnit.SECONDS)).isEqualTo("one");
        assertThat(reader2.get(20, TimeUnit.SECONDS)).isEqualTo("two");
        assertThat(subscribeOnLoop(prices::write).get(20, TimeUnit.SECONDS)).isEqualTo("written");
    }

    @Test
    @DisplayName("a bulkhead of capacity 2 holds two Uni calls; a third skips; permits come back when they end")
    void bulkheadOfTwo() throws Exception {
        CompletableFuture<String> end1 = new CompletableFuture<>();
        CompletableFuture<String> end2 = new CompletableFuture<>();
        CompletableFuture<String> first =
                subscribeOnLoop(() -> prices.quote(Uni.createFrom().completionStage(end1)));
        CompletableFuture<String> second =
                subscribeOnLoop(() -> prices.quote(Uni.createFrom().completionStage(end2)));
        awaitHeld(() -> locks.getSemaphore("pricing-api", 2).availablePermits() == 0);
        assertThat(subscribeOnLoop(prices::quoteOrSkip).get(20, TimeUnit.SECONDS))
                .isNull();
        end1.complete("one");
        end2.complete("two");
        assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo("one");
        assertThat(second.get(20, TimeUnit.SECONDS)).isEqualTo("two");
        assertThat(locks.getSemaphore("pricing-api", 2).availablePermits()).isEqualTo(2);
        assertThat(subscribeOnLoop(prices::quoteOrSkip).get(20, TimeUnit.SECONDS))
                .isEqualTo("quoted");
    }

    /** Waits (bounded) until {@code held} says the holds are in place. */
    private static void awaitHeld(java.util.concurrent.Callable<Boolean> held) {
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(20))
                .until(held);
    }

    /** Calls the method on an event-loop context and subscribes there; the future has the outcome. */
    private <T> CompletableFuture<T> subscribeOnLoop(Supplier<Uni<T>> method) {
        CompletableFuture<T> outcome = new CompletableFuture<>();
        VertxContext.getOrCreateDuplicatedContext(vertx)
                .runOnContext(
                        ignored -> method.get().subscribe().with(outcome::complete, outcome::completeExceptionally));
        return outcome;
    }

    private static Throwable failureOf(CompletableFuture<?> outcome) {
        Throwable failure = catchThrowable(() -> outcome.get(20, TimeUnit.SECONDS));
        assertThat(failure).isInstanceOf(ExecutionException.class);
        return failure.getCause();
    }
}
