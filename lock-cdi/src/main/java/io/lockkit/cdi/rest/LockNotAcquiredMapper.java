package io.lockkit.cdi.rest;

import io.lockkit.LockNotAcquiredException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * Answers a request whose lock was still busy after the wait its {@code @Locked} method allows
 * ({@link LockNotAcquiredException}) with {@code 409 Conflict}: another caller is working on the
 * same resource. The body is a short plain text that names no lock. Stateless and thread-safe.
 */
// Design notes.
// - Busy is not unavailable: the backend answered, and this instance serves other resources
//   fine, so no 503 (which proxies and load balancers take as "this instance is failing"), nor
//   429 (which says the client sent too much). 409 says the request conflicts with the resource's
//   current state, here work in progress on it; the client may try again. No Retry-After: how long
//   the other caller keeps the lock is not known, and the header is not defined for 409.
@Provider
@Priority(Priorities.USER + 1000)
public class LockNotAcquiredMapper implements ExceptionMapper<LockNotAcquiredException> {

    /** Called by the Jakarta REST runtime, which finds this class by scanning. */
    public LockNotAcquiredMapper() {}

    @Override
    public Response toResponse(LockNotAcquiredException exception) {
        return Response.status(Response.Status.CONFLICT)
                .type(MediaType.TEXT_PLAIN_TYPE)
                .entity("The resource is busy with another request; retry later.\n")
                .build();
    }
}
