package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

/** Asynchronous {@code @Locked} methods that return the work they are given. */
@ApplicationScoped
public class AsyncWork {

    @Locked("report:{id}")
    public CompletableFuture<String> future(String id, CompletableFuture<String> work) {
        return work;
    }

    @Locked("report:{id}")
    public CompletionStage<String> stage(String id, CompletableFuture<String> work) {
        return work.minimalCompletionStage();
    }

    @Locked(value = "report:{id}", waitTime = 0)
    public CompletableFuture<String> tryOnce(String id, CompletableFuture<String> work) {
        return work;
    }

    /** Notes the thread the method body runs on. */
    @Locked("report:{id}")
    public CompletableFuture<String> noting(String id, CompletableFuture<String> work, AtomicReference<Thread> ranOn) {
        ranOn.set(Thread.currentThread());
        return work;
    }

    @Locked(value = "report:{id}", holdAtLeast = 500, holdAtLeastUnit = ChronoUnit.MILLIS)
    public CompletableFuture<String> atLeast(String id, CompletableFuture<String> work) {
        return work;
    }
}
