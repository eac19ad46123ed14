package io.lockkit;

import java.time.Duration;

/** The lock stayed busy for the whole wait the options allowed. */
public class LockNotAcquiredException extends LockException {
    private static final long serialVersionUID = 1L;

    private final Duration waited;

    public LockNotAcquiredException(String lockName, Duration waited) {
        super(lockName, "lock not acquired within " + waited);
        this.waited = waited;
    }

    /** How long the caller waited. */
    public Duration waited() {
        return waited;
    }
}
