package io.lockkit;

import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The operator's view of a {@link DistributedLockFactory} ({@link DistributedLockFactory#operations()}):
 * inspect, list and force-release locks whoever holds them, and check the factory's health. For
 * operator tools, health endpoints and diagnostics, not for deciding whether to lock. Thread-safe.
 */
public interface LockOperations {

    /**
     * What the backend says about the lock now: holder (owner and client id), hold count, fencing
     * token, lease left and waiters; empty when it is free. One provider call (one round trip on
     * Redis and on a database). The answer is a snapshot for operators and diagnostics, possibly
     * stale by the time it is read: never decide from it whether to lock.
     *
     * @throws IllegalArgumentException when {@code name} is not a valid lock name
     * @throws UnsupportedOperationException when the provider does not declare
     *         {@link io.lockkit.spi.LockProvider.Capability#INSPECTION}
     * @throws LockException when the factory is closed, or (as {@link BackendUnavailableException})
     *         when the backend did not answer within its timeout
     */
    Optional<LockInfo> inspect(String name);

    /**
     * The locks held now whose names start with {@code prefix} ({@code ""}: all of them), in no
     * particular order. The stream is lazy: it asks the provider for one bounded page at a time
     * as it is consumed (on Redis one {@code SCAN} and one pipelined read per page, cluster-wide;
     * never {@code KEYS}), so memory stays constant however many locks exist. A lock held during
     * the whole listing is listed at least once (on Redis possibly twice, as {@code SCAN} may
     * return a key twice); one taken or freed meanwhile may or may not be. Close the stream, best
     * with try-with-resources; closing ends the listing and releases what it holds of the backend
     * (a page cursor keeps no connection between pages, so an unclosed stream leaks nothing but
     * its buffered page):
     *
     * <pre>{@code
     * try (Stream<LockInfo> held = locks.operations().locks("order:")) {
     *     held.filter(l -> l.waiters() > 0).forEach(l -> log(l.name(), l.owner()));
     * }
     * }</pre>
     *
     * The stream is for one thread; pages are fetched on the thread that consumes it. A backend
     * failure while it is consumed is thrown from the terminal operation.
     *
     * @throws IllegalArgumentException when {@code prefix} is null or longer than a lock name may be
     * @throws UnsupportedOperationException when the provider does not declare
     *         {@link io.lockkit.spi.LockProvider.Capability#LISTING}
     * @throws LockException when the factory is closed (also from the stream, once it is)
     */
    Stream<LockInfo> locks(String prefix);

    /**
     * Frees the lock whoever holds it. A holder in this factory learns of the loss at once; a
     * holder elsewhere at its next renewal (or sooner through a failed unlock), when its handle
     * reports the loss and its loss listener is called. Waiters are woken.
     *
     * @return whether the lock was held
     * @throws IllegalArgumentException when {@code name} is not a valid lock name
     * @throws UnsupportedOperationException when the provider does not declare
     *         {@link io.lockkit.spi.LockProvider.Capability#FORCE_RELEASE}
     * @throws LockException when the factory is closed or the backend did not answer
     */
    boolean forceRelease(String name);

    /**
     * Sets the capacity stored with {@code name}, a semaphore's number of permits, for every client.
     * Holders over a reduced capacity keep their permits until they release or their leases lapse,
     * and no permit is granted until the permits held fit the new capacity; waiters are woken to
     * try against it.
     *
     * @throws IllegalArgumentException when {@code name} is not a valid lock name or {@code capacity}
     *         is below 1
     * @throws UnsupportedOperationException when the provider does not declare
     *         {@link io.lockkit.spi.LockProvider.Capability#SHARED_HOLDS}
     * @throws LockException when the factory is closed or the backend did not answer
     */
    void setCapacity(String name, int capacity);

    /**
     * Checks now whether the factory can lock, for readiness probes: asks the backend one cheap
     * question (a lookup of a fixed probe name, or a try-lock and release of it), waiting at most
     * {@code probeTimeout} for the answer, and reports the watchdog's state, the active holds and
     * the losses of the last minute; {@link HealthReport#isUp()} gives the verdict. Probes do not
     * reach observers or JFR. A backend failure or timeout is reported, never thrown.
     *
     * @throws IllegalArgumentException when {@code probeTimeout} is null, zero or negative
     * @throws UnsupportedOperationException when the factory cannot check itself
     */
    HealthReport health(Duration probeTimeout);
}
