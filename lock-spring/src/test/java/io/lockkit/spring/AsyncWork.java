package io.lockkit.spring;

import io.lockkit.cdi.Locked;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** @Locked methods whose work ends when their result completes. */
public class AsyncWork {

    /** How many times a body ran. */
    private final AtomicInteger bodies = new AtomicInteger();

    public int bodies() {
        return bodies.get();
    }

    @Locked("stage")
    public CompletionStage<String> stage(CompletableFuture<String> result) {
        bodies.incrementAndGet();
        return result;
    }

    @Locked("mono")
    public Mono<String> mono(CompletableFuture<String> result) {
        bodies.incrementAndGet();
        return Mono.fromFuture(result);
    }

    @Locked("flux")
    public Flux<Integer> flux(CompletableFuture<Integer> last) {
        bodies.incrementAndGet();
        return Flux.concat(Flux.just(1, 2), Mono.fromFuture(last));
    }
}
