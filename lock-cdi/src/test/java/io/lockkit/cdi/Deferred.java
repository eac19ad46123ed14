package io.lockkit.cdi;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A lazy asynchronous type for tests, as Mutiny's {@code Uni} is to Quarkus: nothing happens until
 * {@link #start()}, and each start runs the work again. {@link TestRuntime} adapts it.
 */
public final class Deferred<T> {

    private final Supplier<CompletableFuture<T>> work;

    private Deferred(Supplier<CompletableFuture<T>> work) {
        this.work = work;
    }

    static <T> Deferred<T> of(Supplier<CompletableFuture<T>> work) {
        return new Deferred<>(work);
    }

    /** Runs the work; cancelling the future cancels it. */
    public CompletableFuture<T> start() {
        return work.get();
    }
}
