package io.lockkit.cdi;

/** What a {@link Locked} method does when its lock is still busy after the wait. */
public enum WhenBusy {

    /** Throw {@link io.lockkit.LockNotAcquiredException} (for a {@code CompletionStage} method: return a stage failed with it). */
    THROW,

    /**
     * Do not call the method: return {@code null}, {@code Optional.empty()}, nothing for {@code void},
     * or a stage completed with one of these. Not allowed on methods returning a primitive. A call
     * whose lock cannot be asked for because the backend is unavailable
     * ({@link io.lockkit.BackendUnavailableException}) is skipped the same way, and the outage is
     * logged once when it begins and once when it ends rather than at every call: a job that every
     * instance schedules (the main use of {@code SKIP}) does not run, nor fill the log, while the
     * lock cannot be had.
     */
    SKIP
}
