package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The releases one transaction defers to its completion, in the order they were deferred, whatever
 * the transaction manager (Jakarta Transactions, Spring's): the manager's synchronization calls
 * {@link #releaseAll} after the commit or rollback. Each manager's synchronization extends it.
 * Thread-safe.
 */
// Design notes.
// - A later @Locked call of the same name within the transaction finds its hold here and joins it
//   (otherwise it would wait for a hold only its own commit releases).
// - The completion may run on another thread (a transaction reaper's rollback): LockHandle release
//   works from any thread. A failure there cannot reach the caller any more; the hold's loss was
//   already reported through LockHandle.lost(), so it is logged.
public class DeferredReleases {

    private static final System.Logger LOG = System.getLogger(DeferredReleases.class.getName());

    private record Entry(DistributedLockFactory factory, String name, LockHandle hold, Runnable release) {}

    private final List<Entry> entries = new ArrayList<>();

    /** No releases yet. */
    public DeferredReleases() {}

    /** Defers {@code release}, the release of {@code hold} of {@code name}, to {@link #releaseAll}. */
    public final synchronized void add(DistributedLockFactory factory, String name, LockHandle hold, Runnable release) {
        entries.add(new Entry(factory, name, hold, release));
    }

    /** The deferred hold of {@code name} on {@code factory}, or null. */
    public final synchronized @Nullable LockHandle find(DistributedLockFactory factory, String name) {
        for (Entry e : entries) {
            if (e.factory() == factory && e.name().equals(name)) {
                return e.hold();
            }
        }
        return null;
    }

    /**
     * Runs the deferred releases, innermost first, each once; a failing one is logged and the rest
     * still run. {@code committed}: whether the transaction committed, for the log line.
     */
    public final void releaseAll(boolean committed) {
        List<Entry> release;
        synchronized (this) {
            release = new ArrayList<>(entries);
            entries.clear();
        }
        for (int i = release.size() - 1; i >= 0; i--) {
            Entry e = release.get(i);
            try {
                e.release().run();
            } catch (RuntimeException failure) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "lockkit: the lock ''" + e.name() + "'' could not be released"
                                + " after its transaction "
                                + (committed ? "committed" : "ended")
                                + ": " + failure.getMessage(),
                        failure);
            }
        }
    }
}
