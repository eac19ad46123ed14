package io.lockkit.examples.quarkus;

import io.lockkit.cdi.Locked;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A reactive endpoint under {@code @Locked}: it runs on the event loop, reads a counter, pauses
 * without blocking, and writes it back. Without the lock, concurrent requests would overlap and
 * lose updates; with it, none waits on the event loop for the lock.
 */
@Path("/stock")
public class StockCounterResource {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private volatile int reserved;

    // guide:quarkus-reactive-begin
    @POST
    @Path("/{sku}/reserve")
    @Locked("stock:{sku}")
    public Uni<Integer> reserve(@PathParam("sku") String sku) {
        if (inside.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
        int read = reserved;
        return Uni.createFrom()
                .item(read)
                .onItem()
                .delayIt()
                .by(Duration.ofMillis(5)) // a non-blocking pause: another request would slip in here
                .map(before -> {
                    reserved = before + 1;
                    inside.decrementAndGet();
                    return reserved;
                });
    }
    // guide:quarkus-reactive-end

    /** Reservations made so far. */
    public int reserved() {
        return reserved;
    }

    /** Requests that found another one inside {@link #reserve}. */
    public int overlaps() {
        return overlaps.get();
    }
}
