package io.lockkit.cdi.rest;

import io.lockkit.BackendUnavailableException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * Answers a request that failed because the lock backend is unreachable or did not answer in time
 * ({@link BackendUnavailableException}, from a {@code @Locked} resource method or from any code it
 * called) with {@code 503 Service Unavailable} and {@code Retry-After: 5}: the service is
 * unavailable for now, not broken. The body is a short plain text that names no host, lock or
 * exception. Stateless and thread-safe.
 */
// Design notes.
// - 503 rather than the 500 an unmapped exception gets: clients and proxies retry a 503 (after
//   Retry-After), and a 500 reads as a bug in the application.
// - Retry-After is a constant: how long an outage lasts is not known when it begins; 5 s is about
//   a Redis restart or a Sentinel failover, and clients that retry sooner only add load meanwhile.
//   An application that knows better maps the exception itself (its mapper wins by priority).
// - Nothing is logged per request: the @Locked calls' outage is logged once (BackendOutage), and
//   the readiness check turns DOWN; a line per failed request would repeat the outage's line.
@Provider
@Priority(Priorities.USER + 1000)
public class BackendUnavailableMapper implements ExceptionMapper<BackendUnavailableException> {

    /** The {@code Retry-After} of the answer, in seconds. */
    public static final int RETRY_AFTER_SECONDS = 5;

    /** Called by the Jakarta REST runtime, which finds this class by scanning. */
    public BackendUnavailableMapper() {}

    @Override
    public Response toResponse(BackendUnavailableException exception) {
        return Response.status(Response.Status.SERVICE_UNAVAILABLE)
                .header("Retry-After", RETRY_AFTER_SECONDS)
                .type(MediaType.TEXT_PLAIN_TYPE)
                .entity("The lock service is unavailable; retry later.\n")
                .build();
    }
}
