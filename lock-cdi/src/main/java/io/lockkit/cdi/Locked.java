package io.lockkit.cdi;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.temporal.ChronoUnit;

/**
 * Runs the method while holding a distributed lock from the application's
 * {@link io.lockkit.DistributedLockFactory}. On a type, it applies to every business method.
 *
 * <pre>{@code
 * @Locked("order:{orderId}")
 * public void ship(long orderId) { ... }
 * }</pre>
 *
 * <p><b>Name template.</b> {@link #value()} is literal text with placeholders: {@code {orderId}} (a
 * parameter by name; needs classes compiled with {@code -parameters}), {@code {0}} (by position), and
 * property paths such as {@code {order.id}} (from a parameter by name, so {@code -parameters} too) or
 * {@code {0.customer.id}} (by position), each step a getter
 * ({@code getId()}, {@code isActive()}), a record component or another no-argument accessor
 * ({@code id()}) of the step's declared type. {@code {period:PT1M}} (any ISO-8601 duration of whole
 * milliseconds) names the period the call belongs to: the boundary nearest to the call's wall-clock
 * time, a multiple of the period since the epoch, as an ISO-8601 instant ({@code 2026-11-26T07:31:00Z});
 * instances whose schedulers fire less than half a period early or late name a period alike.
 * {@code {period:PT1S:execution.scheduledFireTime}} names the period of the time an argument (or a
 * property path from one) holds, an {@code Instant}, {@code ZonedDateTime} or {@code OffsetDateTime}:
 * given the time a scheduler meant the call for (Quarkus' {@code ScheduledExecution}), a call that
 * runs late still names its own period. <code>{{</code> and <code>}}</code> stand for literal braces.
 * Values are rendered with {@code String.valueOf}; a {@code null} value fails the call with an
 * {@link IllegalArgumentException} rather than locking on {@code "null"}. The empty default names the
 * lock after the declaring class and method, {@code com.acme.OrderService.ship}: overloads share it.
 * A template that names a missing parameter or property, or is malformed, fails deployment (the
 * extension checks every bean's {@code @Locked} methods), at the latest the first call, naming the
 * method.
 *
 * <p><b>Waiting.</b> By default a call waits up to 60 s for a busy lock: longer than the 30 s
 * watchdog lease, so a waiter outlives a crashed holder's lock instead of failing, yet bounded, so a
 * stuck holder surfaces as {@link io.lockkit.LockNotAcquiredException} instead of piling up request
 * threads. {@code waitTime = 0} tries once; {@link #FOREVER} waits as long as it takes.
 *
 * <p><b>Lease.</b> Without {@link #leaseTime()} the watchdog keeps the lock while the method runs;
 * with one, the lock lapses after it even if the method is still running, and the loss is reported
 * when the method returns ({@link io.lockkit.LockLostException}).
 *
 * <p><b>Nesting and asynchronous methods.</b> A {@code @Locked} method called (directly or through
 * other beans) from within a {@code @Locked} method of the same lock name on the same thread joins
 * the outer hold instead of waiting for itself; so does a synchronous one called while the thread
 * holds the lock through {@link io.lockkit.DistributedLock}. A method returning {@code CompletionStage} or
 * {@code CompletableFuture} keeps the lock until the returned stage completes, normally or
 * exceptionally; {@code Future} and reactive types are rejected, because the lock could not follow
 * them. Such a method never makes its caller wait: the call returns a stage at once, the lock is
 * acquired without a waiting thread ({@link io.lockkit.DistributedLockFactory#acquireAsync}), and the
 * method runs once it is granted, on the thread that completes the acquisition (one of the factory's
 * threads for asynchronous acquisitions; not the caller's, so thread-bound context such as an active
 * request scope is not there). A busy lock, a backend failure and {@link WhenBusy#SKIP} come back
 * through the stage; cancelling the stage before the lock is granted abandons the wait, and the
 * method does not run. Called within a {@code @Locked} method of the same lock name, it joins that
 * hold on the calling thread instead.
 *
 * <p><b>Transactions.</b> The interceptor runs at {@link #PRIORITY}, before Jakarta Transactions'
 * {@code @Transactional} interceptor ({@code PLATFORM_BEFORE + 200}): on a {@code @Transactional}
 * method the lock is taken before the transaction begins and released after it has committed or
 * rolled back, so the next holder sees the committed data. When a transaction is already active
 * where the lock is taken (a {@code @Locked} method called from a {@code @Transactional} one, an EJB
 * business method under a container-managed transaction, a {@code UserTransaction}), the release
 * waits for that transaction's completion, commit or rollback; later {@code @Locked} calls of the
 * same name in that transaction join the hold. Private and static methods cannot be intercepted
 * and are rejected.
 */
@Inherited
@InterceptorBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Locked {

    /**
     * The interceptor's priority, {@code PLATFORM_BEFORE + 100}: it must wrap the transaction
     * ({@code PLATFORM_BEFORE + 200}), because a lock released before the commit lets the next holder
     * read data that is not committed yet, and a lock taken inside the transaction counts the wait
     * against the transaction timeout. Interceptors of other libraries (Fault Tolerance, validation,
     * metrics, at {@code PLATFORM_AFTER} and later) run inside the lock.
     */
    int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 100;

    /** {@link #waitTime()} that waits as long as it takes. */
    long FOREVER = -1;

    /** {@link #leaseTime()} that lets the watchdog keep the lock while the method runs (the default). */
    long WATCHDOG = -1;

    /** The lock name template; empty: the declaring class's name, a dot and the method's name. */
    @Nonbinding
    String value() default "";

    /** How long to wait for a busy lock, in {@link #waitUnit()}: 0 tries once, {@link #FOREVER} has no limit. */
    @Nonbinding
    long waitTime() default 60;

    /** The unit of {@link #waitTime()}; from {@code NANOS} to {@code DAYS}. */
    @Nonbinding
    ChronoUnit waitUnit() default ChronoUnit.SECONDS;

    /** A fixed lease in {@link #leaseUnit()}, or {@link #WATCHDOG} (the default) to renew while the method runs. */
    @Nonbinding
    long leaseTime() default WATCHDOG;

    /** The unit of {@link #leaseTime()}; from {@code NANOS} to {@code DAYS}. */
    @Nonbinding
    ChronoUnit leaseUnit() default ChronoUnit.SECONDS;

    /**
     * The shortest time the lock stays held, in {@link #holdAtLeastUnit()}, counted from when it was
     * taken: a call that returns sooner leaves the lock held (its lease set to the rest, no longer
     * renewed) until then, so a job that several instances schedule every period runs once per
     * period (with {@link WhenBusy#SKIP} and {@code waitTime = 0} on the others). 0, the default,
     * releases when the method returns.
     */
    @Nonbinding
    long holdAtLeast() default 0;

    /** The unit of {@link #holdAtLeast()}; from {@code NANOS} to {@code DAYS}. */
    @Nonbinding
    ChronoUnit holdAtLeastUnit() default ChronoUnit.SECONDS;

    /**
     * What happens when the lock is still busy after the wait: throw (the default) or skip the call.
     * {@link WhenBusy#SKIP} also skips a call whose backend is unavailable, logging the outage once.
     */
    @Nonbinding
    WhenBusy whenBusy() default WhenBusy.THROW;

    /**
     * Which hold of the name the call takes: {@link LockMode#EXCLUSIVE} (the default), or a side of
     * the name's read/write lock. {@code READ} calls share the name; {@code WRITE} is the exclusive
     * hold. Nested on one thread (or in one transaction), a {@code READ} call inside an exclusive
     * one joins it (the read/write lock's downgrade); an exclusive call inside a {@code READ} one
     * fails at once with {@link IllegalMonitorStateException} (an upgrade, which could deadlock).
     */
    @Nonbinding
    LockMode mode() default LockMode.EXCLUSIVE;
}
