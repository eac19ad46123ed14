package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The partner's client in {@link PartnerQuotes}: a fixed quote. */
@ApplicationScoped
public class PartnerApi {
    int quote(String sku) {
        return sku.length();
    }

    CompletionStage<Integer> quoteAsync(String sku) {
        return CompletableFuture.completedFuture(quote(sku));
    }
}
