package io.lockkit.examples.quarkus;

import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

/** A control for ReactiveEndpointTest: blocks the event loop on purpose, so the checker's warning is seen. */
@Path("/test/block-event-loop")
public class EventLoopBlocker {

    @POST
    public Uni<String> block() throws InterruptedException {
        Thread.sleep(1_500); // on the event loop: exactly what must never happen in real code
        return Uni.createFrom().item("blocked");
    }
}
