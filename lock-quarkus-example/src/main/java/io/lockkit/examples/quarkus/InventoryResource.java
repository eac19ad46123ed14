package io.lockkit.examples.quarkus;

import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;

/**
 * The blocking HTTP face of {@link InventoryService} (worker threads): its {@code @Locked} methods'
 * failures reach the client through lock-cdi's exception mappers, 503 with {@code Retry-After} when
 * Redis is unavailable and 409 when the SKU stays locked by another request.
 */
@Path("/inventory")
public class InventoryResource {

    @Inject
    InventoryService inventory;

    /** Reserves {@code quantity} of {@code sku}, waiting for the SKU's lock as {@code @Locked} allows. */
    @POST
    @Path("/{sku}/reserve")
    public int reserve(@PathParam("sku") String sku, @QueryParam("quantity") int quantity) {
        return inventory.reserve(sku, quantity);
    }

    /** Like {@link #reserve}, but fails at once when another caller holds the SKU. */
    @POST
    @Path("/{sku}/reserve-now")
    public int reserveNow(@PathParam("sku") String sku, @QueryParam("quantity") int quantity) {
        return inventory.reserveNow(sku, quantity);
    }
}
