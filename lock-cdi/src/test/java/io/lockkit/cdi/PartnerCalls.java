package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;

/** Calls to a partner API bounded cluster-wide by {@code @DistributedBulkhead}s of capacity 2. */
@ApplicationScoped
public class PartnerCalls {

    @Inject
    PartnerCalls self;

    /** Holds a permit of {@code partner} until {@code work} completes; a full bulkhead fails the stage. */
    @DistributedBulkhead(value = "partner", capacity = 2)
    public CompletionStage<String> call(CountDownLatch granted, CompletableFuture<String> work) {
        granted.countDown();
        return work;
    }

    /** As {@link #call}, but a full bulkhead skips the call: an empty result. */
    @DistributedBulkhead(value = "partner", capacity = 2, whenBusy = WhenBusy.SKIP)
    public CompletionStage<Optional<String>> callOrSkip(CompletableFuture<Optional<String>> work) {
        return work;
    }

    /** As {@link #call}, but waits up to 20 s for a permit. */
    @DistributedBulkhead(value = "partner", capacity = 2, waitTime = 20)
    public CompletionStage<String> callWaiting(CountDownLatch granted, CompletableFuture<String> work) {
        granted.countDown();
        return work;
    }

    /** Synchronous, trying once; nested calls of the same bulkhead join the outer call's permits. */
    @DistributedBulkhead(value = "partner", capacity = 2, permits = 2)
    public String quote(int depth) {
        return depth == 0 ? "quoted" : self.quote(depth - 1);
    }

    /** Synchronous, skipping when full. */
    @DistributedBulkhead(value = "partner", capacity = 2, whenBusy = WhenBusy.SKIP)
    public Optional<String> quoteOrSkip() {
        return Optional.of("quoted");
    }

    /** In a transaction of its own: the permit is given back after the commit. */
    @Transactional
    @DistributedBulkhead(value = "partner", capacity = 2)
    public String inTransaction(Runnable inside) {
        inside.run();
        return "done";
    }
}
