package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Readers and writers of one name, {@code catalog}, through {@code @Locked(mode = ...)}. */
@ApplicationScoped
public class Catalog {

    @Inject
    Inner inner;

    /** Counts {@code entered} down once it holds the read lock, then waits for {@code leave} (bounded). */
    @Locked(value = "catalog", mode = LockMode.READ, waitTime = 10)
    public boolean read(CountDownLatch entered, CountDownLatch leave) throws InterruptedException {
        entered.countDown();
        return leave.await(20, TimeUnit.SECONDS);
    }

    @Locked(value = "catalog", mode = LockMode.READ, waitTime = 0)
    public String readOnce() {
        return "read";
    }

    @Locked(value = "catalog", mode = LockMode.WRITE, waitTime = 0)
    public String writeOnce() {
        return "written";
    }

    @Locked(value = "catalog", waitTime = 0)
    public String exclusiveOnce() {
        return "exclusive";
    }

    /** A reader that calls a writer of the same name: an upgrade. */
    @Locked(value = "catalog", mode = LockMode.READ, waitTime = 0)
    public String readThenWrite() {
        return inner.write();
    }

    /** A writer that calls a reader of the same name: a downgrade, joined. */
    @Locked(value = "catalog", mode = LockMode.WRITE, waitTime = 0)
    public String writeThenRead() {
        return inner.read();
    }

    /** An asynchronous reader: counts {@code granted} down, then holds the read lock until {@code work} completes. */
    @Locked(value = "catalog", mode = LockMode.READ, waitTime = 10)
    public CompletionStage<String> readAsync(CountDownLatch granted, CompletableFuture<String> work) {
        granted.countDown();
        return work;
    }

    /** An asynchronous writer that tries once. */
    @Locked(value = "catalog", mode = LockMode.WRITE, waitTime = 0)
    public CompletionStage<String> writeAsync() {
        return CompletableFuture.completedFuture("written");
    }

    @ApplicationScoped
    public static class Inner {

        @Locked(value = "catalog", mode = LockMode.WRITE, waitTime = 0)
        public String write() {
            return "written";
        }

        @Locked(value = "catalog", mode = LockMode.READ, waitTime = 0)
        public String read() {
            return "read";
        }
    }
}
