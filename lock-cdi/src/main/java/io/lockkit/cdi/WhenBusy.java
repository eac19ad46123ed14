package io.lockkit.cdi;

/** What a {@link Locked} method does when its lock is still busy after the wait. */
public enum WhenBusy {

    /** Throw {@link io.lockkit.LockNotAcquiredException} (for a {@code CompletionStage} method: return a stage failed with it). */
    THROW,

    /**
     * Do not call the method: return {@code null}, {@code Optional.empty()}, nothing for {@code void},
     * or a stage completed with one of these. Not allowed on methods returning a primitive.
     */
    SKIP
}
