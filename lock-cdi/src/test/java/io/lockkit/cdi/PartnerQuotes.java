package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

// primitives:cdi-bulkhead-begin
@ApplicationScoped
public class PartnerQuotes {

    @Inject
    PartnerApi partner;

    /** At most 3 calls in flight across every instance; a 4th waits up to 2 s for a permit, then fails. */
    @DistributedBulkhead(value = "partner-api", capacity = 3, waitTime = 2)
    public int quote(String sku) {
        return partner.quote(sku);
    }

    /** The same permits for asynchronous calls, held until the stage completes; skipped when none is free. */
    @DistributedBulkhead(value = "partner-api", capacity = 3, whenBusy = WhenBusy.SKIP)
    public CompletionStage<Optional<Integer>> quoteIfFree(String sku) {
        return partner.quoteAsync(sku).thenApply(Optional::of);
    }
}
// primitives:cdi-bulkhead-end
