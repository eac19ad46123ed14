package io.lockkit.shedlock;

import io.lockkit.LockHandle;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The lockkit hold a ShedLock job runs under, for jobs that need its fencing token:
 *
 * <pre>{@code
 * @Scheduled(cron = "0 * * * * *")
 * @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT10M")
 * void report() {
 *     reports.publish(CurrentShedLock.handle().orElseThrow().fencingToken());
 * }
 * }</pre>
 *
 * <p>ShedLock takes the lock, runs the job and unlocks on the job's thread, so the hold is kept per
 * thread, innermost first for nested jobs, from {@link LockkitLockProvider#lock} until the
 * lock's {@code unlock()} (or {@code extend} that found it lost). A lock taken through the provider
 * directly and never unlocked stays its thread's current one until its hold has ended and the thread
 * takes another. Thread-safe: each thread sees only its own holds.
 */
public final class CurrentShedLock {

    private static final ThreadLocal<Deque<Entry>> ACTIVE = new ThreadLocal<>();

    private CurrentShedLock() {}

    /**
     * The hold of the innermost ShedLock lock that {@link LockkitLockProvider} gave the calling thread
     * and that is not unlocked yet, or empty outside one. Unlocking it is ShedLock's job (through its
     * {@code SimpleLock}); reading its token and lease is what it is for.
     */
    public static Optional<LockHandle> handle() {
        Deque<Entry> active = ACTIVE.get();
        if (active == null) {
            return Optional.empty();
        }
        prune(active);
        Entry innermost = active.peekLast();
        return innermost == null ? Optional.empty() : Optional.of(innermost.handle);
    }

    /** Records {@code handle} as the calling thread's innermost hold. */
    static Entry started(LockHandle handle) {
        Deque<Entry> active = ACTIVE.get();
        if (active == null) {
            active = new ArrayDeque<>();
            ACTIVE.set(active);
        }
        // Entries of locks unlocked from another thread, and of locks abandoned (never unlocked) whose
        // hold has ended: a job starting on this thread is not inside those.
        active.removeIf(e -> e.ended || !e.handle.isValid());
        Entry entry = new Entry(handle, Thread.currentThread());
        active.addLast(entry);
        return entry;
    }

    /** Drops the ended entries, and the thread's list once it is empty. */
    private static void prune(Deque<Entry> active) {
        active.removeIf(e -> e.ended);
        if (active.isEmpty()) {
            ACTIVE.remove();
        }
    }

    /** One lock's place on its thread's list. Thread-safe. */
    static final class Entry {
        private final LockHandle handle;
        private final Thread thread;
        private volatile boolean ended;

        private Entry(LockHandle handle, Thread thread) {
            this.handle = handle;
            this.thread = thread;
        }

        LockHandle handle() {
            return handle;
        }

        /** Takes this lock off its thread's list: at once on that thread, at its next use from another. */
        void end() {
            ended = true;
            if (Thread.currentThread() == thread) {
                Deque<Entry> active = ACTIVE.get();
                if (active != null) {
                    prune(active);
                }
            }
        }
    }
}
