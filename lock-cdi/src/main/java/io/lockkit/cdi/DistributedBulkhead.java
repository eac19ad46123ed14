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
 * Bounds how many calls run at once across every instance of the application: each call holds
 * {@link #permits()} permits of the {@link io.lockkit.DistributedSemaphore} {@link #value()} of
 * {@link #capacity()} while it runs. MicroProfile Fault Tolerance's {@code @Bulkhead} bounds one JVM;
 * this one the cluster, with leased permits (a crashed instance's permits come back after their lease).
 *
 * <pre>{@code
 * @DistributedBulkhead(value = "partner-api", capacity = 3)
 * public Quote quote(String sku) { ... }
 * }</pre>
 *
 * <p>{@link #value()} is a name template as {@link Locked#value()}; the busy policy, the wait, the
 * lease, asynchronous methods ({@code CompletionStage}, and {@code Uni} in Quarkus) and transactions
 * (the permits are given back when the transaction active at the call completes) behave as for
 * {@link Locked}. By default a call tries once ({@code waitTime = 0}), as {@code @Bulkhead} rejects
 * at once, and a full bulkhead throws {@link io.lockkit.LockNotAcquiredException}. A call nested in
 * a call of the same bulkhead on the same thread runs on the outer call's permits.
 *
 * <p>Checked at deployment, naming the method and the member: {@code capacity} and {@code permits}
 * at least 1, {@code permits} at most {@code capacity}, and one capacity for every declaration of a
 * name template. Needs a provider with shared holds (and a fair queue for {@link #fair()}).
 */
@Inherited
@InterceptorBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface DistributedBulkhead {

    /**
     * The interceptor's priority, {@code PLATFORM_BEFORE + 110}: inside {@link Locked} (a call that
     * waits for its lock holds no permit meanwhile), outside {@code @Transactional}.
     */
    int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 110;

    /** The semaphore's name template; empty: the declaring class's name, a dot and the method's name. */
    @Nonbinding
    String value() default "";

    /** How many permits the name has, cluster-wide; at least 1. */
    @Nonbinding
    int capacity();

    /** How many permits one call holds; from 1 to {@link #capacity()}. */
    @Nonbinding
    int permits() default 1;

    /** How long to wait for free permits, in {@link #waitUnit()}: 0 (the default) tries once, {@link Locked#FOREVER} has no limit. */
    @Nonbinding
    long waitTime() default 0;

    /** The unit of {@link #waitTime()}; from {@code NANOS} to {@code DAYS}. */
    @Nonbinding
    ChronoUnit waitUnit() default ChronoUnit.SECONDS;

    /** A fixed lease in {@link #leaseUnit()}, or {@link Locked#WATCHDOG} (the default) to renew while the method runs. */
    @Nonbinding
    long leaseTime() default Locked.WATCHDOG;

    /** The unit of {@link #leaseTime()}; from {@code NANOS} to {@code DAYS}. */
    @Nonbinding
    ChronoUnit leaseUnit() default ChronoUnit.SECONDS;

    /** What happens when the permits are still taken after the wait: throw (the default) or skip the call. */
    @Nonbinding
    WhenBusy whenBusy() default WhenBusy.THROW;

    /** Whether waiting calls are served in arrival order ({@link io.lockkit.DistributedLockFactory#getFairSemaphore}). */
    @Nonbinding
    boolean fair() default false;
}
