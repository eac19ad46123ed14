package io.lockkit.jdbc.internal;

import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.support.WakeUpListeners;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A provider's waiters, by lock key, and the source that tells them of other clients' releases
 * (the dialect's {@link WakeUpSource}, started by the first subscription; none on H2, or when
 * turned off). The provider's own releases wake its waiters here directly. Thread-safe.
 */
public final class WakeUps implements WakeUpSource.Dispatcher {

    private final WakeUpListeners listeners = new WakeUpListeners();
    private final Dialect dialect;
    private final ConnectionSource connections;
    private final ThreadFactory threads;
    private final Duration timeout;
    private final boolean enabled;
    private final ReentrantLock setup = new ReentrantLock();
    private volatile @Nullable WakeUpSource source;
    private volatile boolean closed;

    /** {@code enabled} false: no source is started, waiters of other clients poll. */
    public WakeUps(
            Dialect dialect, ConnectionSource connections, ThreadFactory threads, Duration timeout, boolean enabled) {
        this.dialect = dialect;
        this.connections = connections;
        this.threads = threads;
        this.timeout = timeout;
        this.enabled = enabled;
    }

    /**
     * Delivers releases of the lock with row key {@code key} to {@code listener}; returns once
     * releases are being heard (or the timeout passed: the source then tells the waiters to look
     * again when it is).
     */
    public Subscription subscribe(String key, WakeUpListener listener) {
        listeners.add(key, listener);
        WakeUpSource s = source();
        if (s != null) {
            s.awaitLive(timeout);
        }
        return () -> listeners.remove(key, listener);
    }

    /** Whether other clients' releases are being heard now. */
    public boolean live() {
        WakeUpSource s = source;
        return s != null && s.live();
    }

    /** Whether other clients' releases can be heard at all (else waiters of other clients poll). */
    public boolean enabled() {
        return enabled;
    }

    /** Wakes this provider's waiters of {@code key}: the grantee only, or one for a free lock (null). */
    public void wakeLocal(String key, @Nullable String grantee) {
        listeners.released(key, grantee);
    }

    /**
     * After this provider's release (or force release) of {@code key}: wakes its own waiters that
     * nobody else will tell. A grantee to claim is woken here if it is one of ours (our own
     * notification of it is skipped when it comes back: it would wake it a second time, late); a
     * freed lock wakes one of ours when no source is live to tell us.
     */
    public void afterRelease(String key, ReleaseStatement.Reply reply) {
        if (reply instanceof ReleaseStatement.HandedTo h) {
            wakeLocal(key, h.grantee());
        } else if ((reply instanceof ReleaseStatement.Freed || reply instanceof ReleaseStatement.Lapsed) && !live()) {
            wakeLocal(key, null);
        }
    }

    /**
     * After this provider's release of a shared hold (or of an exclusive one beside shared holds) of
     * {@code key}: room was freed, so one of its waiters looks (others are told by the database's
     * notification, or poll: a shared release leaves the row in place while holders remain).
     */
    public void afterSharedRelease(String key, ReleaseStatement.Reply reply) {
        if (reply instanceof ReleaseStatement.Freed) {
            wakeLocal(key, null);
        }
    }

    @Override
    public void released(String key, @Nullable String grantee) {
        wakeLocal(key, grantee);
    }

    @Override
    public void missed() {
        listeners.missedAll();
    }

    @Override
    public Set<String> waitedKeys() {
        return listeners.keys();
    }

    private @Nullable WakeUpSource source() {
        WakeUpSource s = source;
        if (s != null || !enabled) {
            return s;
        }
        setup.lock();
        try {
            if (source == null && !closed) {
                source = dialect.wakeUps(connections, this, threads);
            }
            return source;
        } finally {
            setup.unlock();
        }
    }

    /** Stops the source; idempotent. */
    public void close() {
        setup.lock();
        try {
            closed = true;
            WakeUpSource s = source;
            if (s != null) {
                s.close();
            }
        } finally {
            setup.unlock();
        }
        listeners.clear();
    }
}
