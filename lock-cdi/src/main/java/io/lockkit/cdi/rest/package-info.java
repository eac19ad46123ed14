/**
 * Jakarta REST answers for lockkit's failures, found by the server's provider scanning (a
 * {@code @Provider} in a jar of the application: {@code WEB-INF/lib}, or Quarkus REST's index):
 * {@link io.lockkit.cdi.rest.BackendUnavailableMapper} answers an unavailable lock backend with
 * {@code 503 Service Unavailable} and {@code Retry-After}, {@link io.lockkit.cdi.rest.LockNotAcquiredMapper}
 * a lock still busy after the wait with {@code 409 Conflict}. An application that answers
 * otherwise declares its own {@code ExceptionMapper} of the same exception, which takes
 * precedence (these carry a lower priority than an application's default). An application whose
 * {@code Application} lists its classes itself adds these two to the list. Used nowhere else in
 * lockkit, so an application without Jakarta REST never loads them.
 */
@NullMarked
package io.lockkit.cdi.rest;

import org.jspecify.annotations.NullMarked;
