package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.smallrye.mutiny.subscription.MultiEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@Locked on Uni and Multi methods, called on Vert.x event loops")
class ReactiveLockedTest {

    /** Reactive {@code @Locked} methods. */
    @ApplicationScoped
    public static class Stock {
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger overlaps = new AtomicInteger();
        private final List<Boolean> onEventLoop = new CopyOnWriteArrayList<>();
        private final AtomicInteger bodies = new AtomicInteger();
        private int count;

        /** Read, pause without blocking, write: loses updates and overlaps without the lock. */
        @Locked("stock:{sku}")
        public Uni<Integer> reserve(String sku) {
            onEventLoop.add(Context.isOnEventLoopThread());
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            int read = count;
            return Uni.createFrom()
                    .item(read)
                    .onItem()
                    .delayIt()
                    .by(Duration.ofMillis(3))
                    .map(r -> {
                        count = r + 1;
                        inside.decrementAndGet();
                        return count;
                    });
        }

        /** Calls that overlapped another (read through methods: the injected client proxy has no state). */
        public int overlaps() {
            return overlaps.get();
        }

        public int count() {
            return count;
        }

        public List<Boolean> onEventLoop() {
            return onEventLoop;
        }

        @Locked("stock:{sku}")
        public Uni<String> holdUntil(String sku, Uni<String> until) {
            return until;
        }

        @Locked("stream:{sku}")
        public Multi<Integer> stream(String sku, Multi<Integer> items) {
            return items;
        }

        /** Whether the body runs on an event loop. */
        @Locked("where:{sku}")
        public Uni<Boolean> onEventLoop(String sku) {
            return Uni.createFrom().item(Context.isOnEventLoopThread());
        }

        @Locked("stock:{sku}")
        public int blocking(String sku) {
            return 1;
        }

        @Locked("fail:{sku}")
        public Uni<String> ending(String sku, Uni<String> outcome) {
            return outcome;
        }

        @Locked("fail:{sku}")
        public Uni<String> throwing(String sku) {
            throw new IllegalStateException("no " + sku + " left");
        }

        @Locked(value = "busy:{sku}", waitTime = 0, whenBusy = WhenBusy.SKIP)
        public Uni<String> skippedWhenBusy(String sku) {
            bodies.incrementAndGet();
            return Uni.createFrom().item("ran");
        }

        @Locked(value = "busy:{sku}", waitTime = 300, waitUnit = ChronoUnit.MILLIS)
        public Uni<String> failingWhenBusy(String sku) {
            bodies.incrementAndGet();
            return Uni.createFrom().item("ran");
        }

        /** How many times a busy-lock method's body ran. */
        public int bodies() {
            return bodies.get();
        }
    }

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Stock.class))
            .overrideConfigKey("quarkus.lockkit.devservices.sources", "path,embedded");

    @Inject
    Stock stock;

    @Inject
    Vertx vertx;

    @Inject
    DistributedLockFactory locks;

    @Test
    @DisplayName(
            "a Uni method subscribed on 40 event-loop contexts at once: no overlap, no lost update, body on the loop")
    void uniUnderContention() throws Exception {
        int calls = 40;
        List<CompletableFuture<Integer>> results = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            CompletableFuture<Integer> result = new CompletableFuture<>();
            results.add(result);
            Context context = VertxContext.getOrCreateDuplicatedContext(vertx);
            context.runOnContext(
                    ignored -> stock.reserve("tea").subscribe().with(result::complete, result::completeExceptionally));
        }
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(stock.overlaps()).isZero();
        assertThat(stock.count()).isEqualTo(calls);
        assertThat(stock.onEventLoop()).hasSize(calls).containsOnly(true);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !locks.getLock("stock:tea").isLocked());
    }

    @Test
    @DisplayName("a Uni method is lazy, holds the lock while its Uni runs, and cancelling releases it")
    void cancellationReleases() {
        Uni<String> uni = stock.holdUntil("coffee", Uni.createFrom().nothing());
        assertThat(locks.getLock("stock:coffee").isLocked())
                .as("nothing before subscription")
                .isFalse();
        Cancellable subscription = uni.subscribe().with(item -> {});
        await().atMost(Duration.ofSeconds(10))
                .until(() -> locks.getLock("stock:coffee").isLocked());
        subscription.cancel();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !locks.getLock("stock:coffee").isLocked());
    }

    @Test
    @DisplayName("a Multi method holds the lock for the stream's life and releases it at completion")
    void multiHeldForTheStream() {
        AtomicReference<MultiEmitter<? super Integer>> emitter = new AtomicReference<>();
        List<Integer> items = new CopyOnWriteArrayList<>();
        AtomicInteger completed = new AtomicInteger();
        stock.stream("cocoa", Multi.createFrom().<Integer>emitter(emitter::set))
                .subscribe()
                .with(items::add, failure -> {}, completed::incrementAndGet);
        await().atMost(Duration.ofSeconds(10)).until(() -> emitter.get() != null);
        assertThat(locks.getLock("stream:cocoa").isLocked()).isTrue();
        emitter.get().emit(1).emit(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> items.size() == 2);
        assertThat(locks.getLock("stream:cocoa").isLocked())
                .as("held until the stream ends")
                .isTrue();
        emitter.get().complete();
        await().atMost(Duration.ofSeconds(10)).until(() -> completed.get() == 1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !locks.getLock("stream:cocoa").isLocked());
        assertThat(items).containsExactly(1, 2);
    }

    @Test
    @DisplayName("called on a worker thread of a request's context, the body does not move to the event loop")
    void workerCallerStaysOffTheLoop() throws Exception {
        CompletableFuture<Boolean> onLoop = new CompletableFuture<>();
        Context context = VertxContext.getOrCreateDuplicatedContext(vertx);
        context.runOnContext(ignored -> {
            var unused = context.executeBlocking(() -> {
                stock.onEventLoop("worker").subscribe().with(onLoop::complete, onLoop::completeExceptionally);
                return null;
            });
        });
        assertThat(onLoop.get(10, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    @DisplayName("a blocking @Locked method called on an event loop fails at once, saying what to do")
    void blockingMethodOnTheEventLoopFails() throws Exception {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        VertxContext.getOrCreateDuplicatedContext(vertx).runOnContext(ignored -> {
            try {
                stock.blocking("sugar");
                failure.complete(null);
            } catch (RuntimeException e) {
                failure.complete(e);
            }
        });
        Throwable thrown = failure.get(10, TimeUnit.SECONDS);
        assertThat(thrown)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Stock.blocking(String)")
                .hasMessageContaining("must not block")
                .hasMessageContaining("return Uni or CompletionStage");
        assertThat(locks.getLock("stock:sugar").isLocked()).isFalse();
        assertThat(stock.blocking("sugar")).as("on a worker thread it runs").isEqualTo(1);
    }

    @Test
    @DisplayName(
            "a Uni that fails, and a method that throws: the failure reaches the subscriber and the lock is released")
    void failuresRelease() throws Exception {
        CompletableFuture<String> failed = subscribeOnLoop(
                () -> stock.ending("flour", Uni.createFrom().failure(new IOException("the mill is down"))));
        assertThatFailure(failed).isInstanceOf(IOException.class).hasMessage("the mill is down");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !locks.getLock("fail:flour").isLocked());

        CompletableFuture<String> thrown = subscribeOnLoop(() -> stock.throwing("yeast"));
        assertThatFailure(thrown).isInstanceOf(IllegalStateException.class).hasMessage("no yeast left");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !locks.getLock("fail:yeast").isLocked());

        assertThat(subscribeOnLoop(() -> stock.ending("flour", Uni.createFrom().item("baked")))
                        .get(10, TimeUnit.SECONDS))
                .as("the lock is free for the next call")
                .isEqualTo("baked");
    }

    @Test
    @DisplayName("a Multi that fails, and one its subscriber cancels mid-stream: the lock is released")
    void multiFailureAndCancellationRelease() {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        stock.stream("rice", Multi.createFrom().failure(new IOException("the silo is empty")))
                .subscribe()
                .with(item -> {}, failure::set);
        await().atMost(Duration.ofSeconds(10)).until(() -> failure.get() != null);
        assertThat(failure.get()).isInstanceOf(IOException.class).hasMessage("the silo is empty");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !locks.getLock("stream:rice").isLocked());

        AtomicReference<MultiEmitter<? super Integer>> emitter = new AtomicReference<>();
        List<Integer> items = new CopyOnWriteArrayList<>();
        Cancellable subscription = stock.stream("oats", Multi.createFrom().<Integer>emitter(emitter::set))
                .subscribe()
                .with(items::add);
        await().atMost(Duration.ofSeconds(10)).until(() -> emitter.get() != null);
        emitter.get().emit(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> items.size() == 1);
        assertThat(locks.getLock("stream:oats").isLocked()).isTrue();
        subscription.cancel();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !locks.getLock("stream:oats").isLocked());
    }

    @Test
    @DisplayName("a busy lock: SKIP completes with null at once, THROW fails after the wait; neither runs the body"
            + " nor releases the holder's lock")
    void busyLockSkipsOrFails() throws Exception {
        try (LockHandle held = locks.acquire("busy:salt")) {
            assertThat(subscribeOnLoop(() -> stock.skippedWhenBusy("salt")).get(10, TimeUnit.SECONDS))
                    .isNull();
            long start = System.nanoTime();
            assertThatFailure(subscribeOnLoop(() -> stock.failingWhenBusy("salt")))
                    .isInstanceOf(LockNotAcquiredException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("waited for the method's waitTime")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(250));
            assertThat(stock.bodies()).isZero();
            assertThat(held.isValid()).as("the holder keeps its lock").isTrue();
            assertThat(locks.getLock("busy:salt").isLocked()).isTrue();
        }
        assertThat(subscribeOnLoop(() -> stock.skippedWhenBusy("salt")).get(10, TimeUnit.SECONDS))
                .isEqualTo("ran");
        assertThat(stock.bodies()).isEqualTo(1);
    }

    /** Calls the method on an event-loop context and subscribes there; the future has the outcome. */
    private <T> CompletableFuture<T> subscribeOnLoop(Supplier<Uni<T>> method) {
        CompletableFuture<T> outcome = new CompletableFuture<>();
        VertxContext.getOrCreateDuplicatedContext(vertx)
                .runOnContext(
                        ignored -> method.get().subscribe().with(outcome::complete, outcome::completeExceptionally));
        return outcome;
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertThatFailure(CompletableFuture<?> outcome) {
        Throwable failure = catchThrowable(() -> outcome.get(10, TimeUnit.SECONDS));
        assertThat(failure).isInstanceOf(ExecutionException.class);
        return assertThat(failure.getCause());
    }
}
