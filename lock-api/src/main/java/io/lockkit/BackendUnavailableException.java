package io.lockkit;

/** The lock backend could not be reached or did not answer in time. */
public class BackendUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    public BackendUnavailableException(String lockName, String message, Throwable cause) {
        super(lockName, message, cause);
    }
}
