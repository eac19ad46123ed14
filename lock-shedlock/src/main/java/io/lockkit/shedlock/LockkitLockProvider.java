package io.lockkit.shedlock;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} over a lockkit
 * {@link DistributedLockFactory}: the one bean a {@code @SchedulerLock} application changes to run
 * its jobs on lockkit's locks, on whatever backend the factory uses. The package documentation
 * states how {@code lockAtMostFor} and {@code lockAtLeastFor} map onto lockkit's leases.
 *
 * <p>The factory is the caller's: this provider never closes it. Thread-safe.
 */
public final class LockkitLockProvider implements ExtensibleLockProvider {

    private final DistributedLockFactory locks;
    private final String prefix;

    /**
     * A provider whose ShedLock lock names are lockkit lock names as they are.
     *
     * @throws IllegalArgumentException when {@code locks} is null
     */
    public LockkitLockProvider(DistributedLockFactory locks) {
        this(locks, "");
    }

    /**
     * A provider whose lockkit lock names are {@code prefix} followed by the ShedLock name (e.g.
     * {@code "jobs:"}), so that jobs and other locks share a backend without sharing names.
     *
     * @throws IllegalArgumentException when {@code locks} or {@code prefix} is null
     */
    public LockkitLockProvider(DistributedLockFactory locks, String prefix) {
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
     * Takes the lock of {@code lockConfiguration}'s name if it is free now, leased for its
     * {@code lockAtMostFor} without renewal; empty when another holds it (or the thread is
     * interrupted, whose flag stays set). The lock is the calling thread's innermost
     * {@link CurrentShedLock} until it is unlocked.
     *
     * @throws IllegalArgumentException when {@code lockConfiguration} is null, its
     *         {@code lockAtMostFor} is shorter than a millisecond, or prefix + name is not a valid
     *         lockkit lock name
     * @throws io.lockkit.LockException when the backend cannot be reached (within the provider's
     *         timeout) or the factory is closed
     * @throws UnsupportedOperationException when the factory's provider has no explicit leases
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        if (lockConfiguration == null) {
            throw new IllegalArgumentException("lockConfiguration must not be null");
        }
        Duration atMost = lockConfiguration.getLockAtMostFor();
        if (atMost.compareTo(LockOptions.MIN_LEASE) < 0) {
            throw new IllegalArgumentException("lockAtMostFor must be at least 1 ms for lockkit's lease; was " + atMost
                    + " for lock '" + lockConfiguration.getName() + "'");
        }
        LockOptions options = LockOptions.builder().noWait().lease(atMost).build();
        Optional<LockHandle> handle;
        try {
            handle = locks.tryAcquire(prefix + lockConfiguration.getName(), options);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // not taken; the caller's thread keeps its interrupt
            return Optional.empty();
        }
        return handle.map(h -> new HandleLock(CurrentShedLock.started(h), lockConfiguration, System.nanoTime()));
    }

    @Override
    public String toString() {
        return "LockkitLockProvider[prefix='" + prefix + "', " + locks + "]";
    }
}
