package io.lockkit.it.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * A resource that touches nothing of lockkit. Alone with {@link ItApplication} and {@link SharedState}
 * it makes the control application the class-loader test deploys and undeploys next to the real
 * one: what the server itself keeps of an undeployed application, without lockkit.
 */
@Path("/ping")
@Produces(MediaType.TEXT_PLAIN)
public class PingResource {

    @GET
    public String ping() {
        return "pong " + SharedState.DEPLOYMENT;
    }
}
