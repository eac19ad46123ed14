package io.lockkit;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Thread owners whose backend state for a name is unknown: a release or acquisition failed, or
 * the hold's lease ran out here, so the backend may still hold it for that owner. The thread's
 * next lock of the name releases that first ({@link Holds#settle}), or the backend would count the
 * new hold into the old one and hand back the old one's fencing token. Thread-safe.
 */
final class Unsettled {

    private final Owners owners;
    private final Set<HoldKey> keys = ConcurrentHashMap.newKeySet();

    Unsettled(Owners owners) {
        this.owners = owners;
    }

    /** Notes that the backend may still hold {@code name} for {@code owner}, if a thread of this client. */
    void unsettle(String name, String owner) {
        if (owners.isThreadOwner(owner)) {
            keys.add(new HoldKey(name, owner));
        }
    }

    /** Takes {@code key} off the list; whether it was on it. */
    boolean take(HoldKey key) {
        return !keys.isEmpty() && keys.remove(key);
    }

    /** Puts {@code key} back, after settling it failed. */
    void putBack(HoldKey key) {
        keys.add(key);
    }
}
