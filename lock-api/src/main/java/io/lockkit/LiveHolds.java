package io.lockkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live holds of one {@link ProviderLockFactory}: from registration until released or lost.
 * {@link Holds} adds and removes them; {@link Gate} asks whether an owner still holds a name while
 * the factory drains. Thread-safe (a concurrent set).
 */
final class LiveHolds {

    private final Set<Hold> live = ConcurrentHashMap.newKeySet();

    void add(Hold h) {
        live.add(h);
    }

    void remove(Hold h) {
        live.remove(h);
    }

    /** How many holds are live. */
    int count() {
        return live.size();
    }

    boolean isEmpty() {
        return live.isEmpty();
    }

    /** The live holds now, a copy. */
    List<Hold> snapshot() {
        return new ArrayList<>(live);
    }

    /** The live holds of {@code name} now, a copy. */
    List<Hold> of(String name) {
        List<Hold> of = new ArrayList<>();
        for (Hold h : live) {
            if (h.name.equals(name)) {
                of.add(h);
            }
        }
        return of;
    }

    /** Whether {@code owner} has a live hold of {@code name} that is still held. */
    boolean holds(String name, String owner) {
        for (Hold h : live) {
            if (h.owner.equals(owner) && h.name.equals(name) && h.state() == Hold.State.HELD) {
                return true;
            }
        }
        return false;
    }
}
