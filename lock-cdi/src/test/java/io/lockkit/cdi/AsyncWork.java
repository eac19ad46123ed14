package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

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
}
