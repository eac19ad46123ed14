package io.lockkit;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether one {@link ProviderLockFactory} is open: open, draining (close(Duration) waits for holds
 * to end, and their owners may take them again) or closed. Every acquisition asks it before it calls
 * the provider and again when it wins. Thread-safe.
 */
final class Gate {

    private final LiveHolds live;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** While close(Duration) waits for holds to end: their owners may still take them again. */
    private volatile boolean draining;

    Gate(LiveHolds live) {
        this.live = live;
    }

    /** Closes the gate; true for the first caller only. */
    boolean close() {
        return closed.compareAndSet(false, true);
    }

    /** While the closed factory drains, the owners of live holds may take them again. */
    void draining(boolean draining) {
        this.draining = draining;
    }

    boolean isClosed() {
        return closed.get();
    }

    /**
     * @throws LockException when the factory is closed
     */
    void ensureOpen(String name) {
        if (closed.get()) {
            throw new LockException(name, "the lock factory is closed");
        }
    }

    /** Like {@link #ensureOpen(String)}, but while draining the owner of a live hold may take it again. */
    void ensureOpen(String name, String owner) {
        if (refuses(name, owner)) {
            throw new LockException(name, draining ? "the lock factory is closing" : "the lock factory is closed");
        }
    }

    /** Whether {@code owner} may not acquire {@code name} now: closed, and not draining a hold of its own. */
    boolean refuses(String name, String owner) {
        if (!closed.get()) {
            return false;
        }
        return !draining || !live.holds(name, owner);
    }
}
