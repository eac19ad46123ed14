package io.lockkit.cdi.internal;

import jakarta.enterprise.inject.Instance;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The container's managed thread factory for one application, wrapped in the thread maker
 * ({@link ManagedThreads.ContextFreeThreads}): looked for once, at application start when the start
 * is observed, on the starting thread; closed with the application.
 */
// Design notes.
// - Start-up never waits for a managed thread to run: Open Liberty runs no managed thread of an
//   application before its initialization is over. The thread maker is made at start (on the
//   starting thread, also for lockkit.startup=lazy, so no request's context reaches its threads);
//   threads needed during the start are made on the starting thread itself, and from startOver()
//   on by the container's factory.
final class ApplicationThreads {

    private final Supplier<Instance<ThreadFactory>> threadFactories;
    private ManagedThreads.@Nullable ContextFreeThreads maker;
    /** Whether the container's thread factory was looked for (then maker is null when it has none). */
    private boolean found;

    private boolean closed;

    ApplicationThreads(Supplier<Instance<ThreadFactory>> threadFactories) {
        this.threadFactories = threadFactories;
    }

    /** The thread maker, found and made at the first call; null without a managed thread factory or once closed. */
    synchronized @Nullable ThreadFactory get() {
        if (!found && !closed) {
            found = true;
            ThreadFactory managed = ManagedThreads.find(threadFactories.get());
            maker = managed == null ? null : ManagedThreads.contextFree(managed);
        }
        return maker;
    }

    /** The start is over: threads lockkit needs from now on are made by the thread maker. */
    synchronized void startOver() {
        if (maker != null) {
            maker.started();
        }
    }

    void close() {
        ManagedThreads.ContextFreeThreads made;
        synchronized (this) {
            closed = true;
            made = maker;
            maker = null;
        }
        if (made != null) {
            made.close();
        }
    }
}
