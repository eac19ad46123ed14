package io.lockkit;

/**
 * A hold ended without its owner releasing it: the lease lapsed, renewal found it gone, or the
 * backend lost it. Thrown by unlock and extend after the loss, and passed to loss listeners.
 */
public class LockLostException extends IllegalMonitorStateException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final long fencingToken;

    public LockLostException(String lockName, long fencingToken, String reason) {
        super("lock lost: " + reason + " (lock '" + LockException.abbreviate(lockName) + "', token " + fencingToken
                + ")");
        this.lockName = lockName;
        this.fencingToken = fencingToken;
    }

    public String lockName() {
        return lockName;
    }

    /** The fencing token of the hold that was lost. */
    public long fencingToken() {
        return fencingToken;
    }
}
