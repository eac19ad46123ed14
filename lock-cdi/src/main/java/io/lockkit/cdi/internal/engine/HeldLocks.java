package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The holds of the {@code @Locked} methods running on each thread, innermost last, so a nested
 * call for a name already held joins the outer hold ({@link LockHandle#acquireAgain()}) instead of
 * waiting for itself. An entry lives while its method body runs: an asynchronous method's hold
 * outlives its entry, and a later, unrelated call on the thread waits like any other.
 */
// Design notes.
// - Not a ThreadLocal: a container's request threads outlive the application, and a ThreadLocal
//   entry lives in the thread. Undeployed while a call runs, the entry of that call (a deque of this
//   application's handles) sat in a server thread when the server checked for leaks (Payara logs
//   "created a ThreadLocal ... but failed to remove it" on every such undeploy). Here the entries
//   live in this class, keyed by thread: nothing of lockkit is ever stored in a container's thread,
//   and the map goes away with the application's class loader.
// - An entry exists only while a @Locked method runs on its thread (push and pop pair up in
//   LockedMethod, also on failure); reads never create one. Each deque is touched by its own thread
//   only; the map is concurrent because threads come and go at once.
public final class HeldLocks {

    private static final Map<Thread, ArrayDeque<Entry>> HELD = new ConcurrentHashMap<>();

    private record Entry(DistributedLockFactory factory, String name, Hold hold) {}

    /** A running call's hold and what kind of hold it is (a READ call joined to a write hold holds the write hold). */
    public record Hold(LockHandle handle, HoldKind.Held held) {}

    private HeldLocks() {}

    /** The hold of the innermost {@code @Locked} method on this thread. */
    public static Optional<LockHandle> innermost() {
        ArrayDeque<Entry> held = HELD.get(Thread.currentThread());
        Entry top = held == null ? null : held.peekLast();
        return top == null ? Optional.empty() : Optional.of(top.hold().handle());
    }

    /**
     * The hold this thread's running {@code @Locked} methods have of {@code name} from {@code factory}
     * that a call of {@code kind} joins, or null: the innermost one of the name, if its kind admits
     * the call (an exclusive hold admits a read call; permits join permits only).
     *
     * @throws IllegalMonitorStateException when an exclusive call would join a read hold (an upgrade)
     */
    static @Nullable Hold find(DistributedLockFactory factory, String name, HoldKind kind) {
        ArrayDeque<Entry> held = HELD.get(Thread.currentThread());
        if (held == null) {
            return null;
        }
        boolean permits = kind.held() == HoldKind.Held.PERMITS;
        for (Iterator<Entry> it = held.descendingIterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.factory() != factory
                    || !e.name().equals(name)
                    || permits != (e.hold().held() == HoldKind.Held.PERMITS)) {
                continue;
            }
            if (kind.held() == HoldKind.Held.EXCLUSIVE && e.hold().held() == HoldKind.Held.READ) {
                throw upgrade(name);
            }
            return e.hold();
        }
        return null;
    }

    /** The failure of an exclusive call within a read hold of the same name. */
    static IllegalMonitorStateException upgrade(String name) {
        return new IllegalMonitorStateException("lock " + name + " is held for reading by this call chain;"
                + " an exclusive (WRITE) hold inside it would be an upgrade, which the read/write lock refuses"
                + " (two readers upgrading would wait for each other forever): take WRITE in the outer call");
    }

    static void push(DistributedLockFactory factory, String name, Hold hold) {
        HELD.computeIfAbsent(Thread.currentThread(), t -> new ArrayDeque<>()).addLast(new Entry(factory, name, hold));
    }

    static void pop() {
        Thread self = Thread.currentThread();
        ArrayDeque<Entry> held = HELD.get(self);
        if (held == null) {
            throw new IllegalStateException("no @Locked method runs on " + self.getName());
        }
        held.removeLast();
        if (held.isEmpty()) {
            HELD.remove(self);
        }
    }

    /** How many threads run a {@code @Locked} method now (for tests). */
    static int threads() {
        return HELD.size();
    }
}
