package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/** {@code @Locked} methods for the {@link TestRuntime} hooks: blocking, asynchronous and {@link Deferred}. */
@ApplicationScoped
public class RuntimeWork {

    @Locked("runtime:{id}")
    public String blocking(String id, AtomicInteger runs) {
        runs.incrementAndGet();
        return "done";
    }

    @Locked("runtime:{id}")
    public CompletableFuture<String> noting(String id, AtomicReference<Thread> ranOn) {
        ranOn.set(Thread.currentThread());
        return CompletableFuture.completedFuture("done");
    }

    /** Counts calls of the method itself, then returns {@code work} as a Deferred. */
    @Locked("runtime:{id}")
    public <T> Deferred<T> deferred(String id, AtomicInteger calls, Supplier<CompletableFuture<T>> work) {
        calls.incrementAndGet();
        return Deferred.of(work);
    }

    @Locked(value = "runtime:{id}", waitTime = 0, whenBusy = WhenBusy.SKIP)
    public Deferred<String> deferredOrSkip(String id) {
        return Deferred.of(() -> CompletableFuture.completedFuture("ran"));
    }
}
