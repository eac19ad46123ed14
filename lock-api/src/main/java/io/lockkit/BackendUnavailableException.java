package io.lockkit;

import org.jspecify.annotations.Nullable;

/** The lock backend could not be reached or did not answer in time. */
public class BackendUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    public BackendUnavailableException(@Nullable String lockName, String message, @Nullable Throwable cause) {
        super(lockName, message, cause);
    }
}
