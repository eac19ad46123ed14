package io.lockkit.spring.integration;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockOptions;
import java.time.Duration;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * A Spring Integration {@link RenewableLockRegistry} over a lockkit {@link DistributedLockFactory}:
 * {@link #obtain} maps a {@code String} key to the lock named by this registry's prefix and the key,
 * on whatever backend the factory uses (Redis, a database, another provider). Use it wherever
 * Spring Integration takes a {@code LockRegistry} (aggregators, idempotent receivers,
 * {@code LockRegistryLeaderInitiator}); the package documentation states how Spring's thread-bound
 * {@code Lock} maps onto lockkit's.
 *
 * <p>Keeps no per-key state: the factory tracks holds, and {@link #obtain} returns a fresh, cheap
 * view each call, so memory does not grow with the number of keys. That is why this registry is not
 * an {@code ExpirableLockRegistry}: there is nothing to expire. The factory is the caller's: this
 * registry never closes it. Thread-safe.
 */
public final class LockkitLockRegistry implements RenewableLockRegistry<LockkitLock> {

    private final DistributedLockFactory locks;
    private final String prefix;

    /**
     * A registry whose keys are lock names as they are.
     *
     * @throws IllegalArgumentException when {@code locks} is null
     */
    public LockkitLockRegistry(DistributedLockFactory locks) {
        this(locks, "");
    }

    /**
     * A registry whose lock names are {@code prefix} followed by the key (e.g. {@code "orders:"}), so
     * that registries of different purposes share a backend without sharing locks.
     *
     * @throws IllegalArgumentException when {@code locks} or {@code prefix} is null
     */
    public LockkitLockRegistry(DistributedLockFactory locks, String prefix) {
        if (locks == null) {
            throw new IllegalArgumentException("locks must not be null");
        }
        if (prefix == null) {
            throw new IllegalArgumentException("prefix must not be null");
        }
        this.locks = locks;
        this.prefix = prefix;
    }

    /**
     * The lock of {@code lockKey}: a view of the factory's lock named prefix + key.
     *
     * @throws IllegalArgumentException when {@code lockKey} is not a {@code String}, or prefix + key
     *         is not a valid lockkit lock name (empty, control characters, longer than
     *         {@link DistributedLockFactory#MAX_NAME_LENGTH})
     */
    @Override
    public LockkitLock obtain(Object lockKey) {
        return new LockkitLock(locks.getLock(nameOf(lockKey)));
    }

    /**
     * Sets the lease of the calling thread's hold of {@code lockKey} to at least the factory's
     * watchdog lease from now; see {@link #renewLock(Object, Duration)}.
     */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, locks.defaultOptions().watchdogLease().orElse(LockOptions.DEFAULT_WATCHDOG_LEASE));
    }

    /**
     * Makes the calling thread's hold of {@code lockKey} last at least {@code ttl} from now, checked
     * with the backend (one round trip): a hold taken with a ttl gets the longer of its remaining
     * lease and {@code ttl} (lockkit never shortens a lease by taking the lock again); a hold the
     * watchdog keeps is left to it. The hold count is unchanged.
     *
     * @throws IllegalArgumentException when {@code lockKey} or {@code ttl} is not valid
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     * @throws IllegalStateException when the backend no longer had the hold (it was lost): the
     *         thread's next {@code unlock()} reports the loss
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        Duration lease = LockkitLock.checkTtl(ttl);
        io.lockkit.DistributedLock lock = locks.getLock(nameOf(lockKey));
        if (!lock.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException(
                    "the current thread does not hold the lock of key '" + lockKey + "', so it cannot renew it");
        }
        long token = tokenOf(lock);
        boolean taken;
        try {
            taken = lock.tryLock(Duration.ZERO, lease); // reentrant: extends an explicit lease, never shortens it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while renewing the lock of key '" + lockKey + "'", e);
        }
        if (!taken) {
            throw new IllegalStateException("could not renew the lock of key '" + lockKey
                    + "': the backend no longer has this thread's hold, and another owner holds the lock");
        }
        boolean sameHold = tokenOf(lock) == token;
        lock.unlock();
        if (!sameHold) {
            // The backend granted a new hold, so the old one had ended there; the new one is released again.
            throw new IllegalStateException("could not renew the lock of key '" + lockKey
                    + "': the backend no longer had this thread's hold; its next unlock() reports the loss");
        }
    }

    /**
     * Ignored: lockkit's watchdog already renews every hold taken without a ttl, on the factory's own
     * scheduler, and a hold taken with a ttl is meant to lapse.
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
        // Nothing to schedule: see the Javadoc.
    }

    /** The thread's token, or 0 on a backend without tokens (where a new hold cannot be told apart). */
    private static long tokenOf(io.lockkit.DistributedLock lock) {
        try {
            return lock.fencingToken();
        } catch (UnsupportedOperationException e) {
            return 0;
        }
    }

    private String nameOf(Object lockKey) {
        if (!(lockKey instanceof String)) {
            throw new IllegalArgumentException("lockKey must be a String; was "
                    + (lockKey == null ? "null" : "a " + lockKey.getClass().getName()));
        }
        return prefix + lockKey;
    }

    @Override
    public String toString() {
        return "LockkitLockRegistry[prefix='" + prefix + "', " + locks + "]";
    }
}
