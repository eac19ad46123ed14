package io.lockkit.cdi;

/**
 * Which side of a name a {@link Locked} method holds: the whole name, or one side of the name's
 * {@link io.lockkit.DistributedReadWriteLock}.
 */
public enum LockMode {

    /**
     * The name's exclusive lock (the default): one holder at a time. The same hold as {@link #WRITE},
     * and as {@link io.lockkit.DistributedLockFactory#getLock(String)} of the name.
     */
    EXCLUSIVE,

    /**
     * The read lock of the name's read/write lock: any number of {@code READ} calls run at once,
     * while no {@link #EXCLUSIVE} or {@link #WRITE} call does. Needs a provider with shared holds.
     */
    READ,

    /** The write lock of the name's read/write lock: the same hold as {@link #EXCLUSIVE}, named for its readers. */
    WRITE
}
