package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The holds of the {@code @Locked} methods running on each thread, innermost last, so a nested
 * call for a name already held joins the outer hold ({@link LockHandle#acquireAgain()}) instead of
 * waiting for itself. An entry lives while its method body runs: an asynchronous method's hold
 * outlives its entry, and a later, unrelated call on the thread waits like any other.
 */
public final class HeldLocks {

    private static final ThreadLocal<ArrayDeque<Entry>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

    private record Entry(DistributedLockFactory factory, String name, LockHandle handle) {}

    private HeldLocks() {}

    /** The hold of the innermost {@code @Locked} method on this thread. */
    public static Optional<LockHandle> innermost() {
        Entry top = HELD.get().peekLast();
        return top == null ? Optional.empty() : Optional.of(top.handle());
    }

    /** The hold this thread's running {@code @Locked} methods have of {@code name} from {@code factory}, or null. */
    static @Nullable LockHandle find(DistributedLockFactory factory, String name) {
        for (Iterator<Entry> it = HELD.get().descendingIterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.factory() == factory && e.name().equals(name)) {
                return e.handle();
            }
        }
        return null;
    }

    static void push(DistributedLockFactory factory, String name, LockHandle handle) {
        HELD.get().addLast(new Entry(factory, name, handle));
    }

    static void pop() {
        ArrayDeque<Entry> held = HELD.get();
        held.removeLast();
        if (held.isEmpty()) {
            HELD.remove();
        }
    }
}
