package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A provider that notes the owners whose waiting attempts it saw answered busy: once one was, that
 * owner waits (and a backend has queued its claim, if the claim blocks others), so a test can order
 * waiters of several clients, or know they wait, without sleeping.
 */
final class WaitWatch extends ForwardingLockProvider {

    private final Set<String> waiting = ConcurrentHashMap.newKeySet();

    WaitWatch(LockProvider delegate) {
        super(delegate);
    }

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        Acquisition a = super.tryAcquire(request);
        if (!a.isAcquired() && request.waiting()) {
            waiting.add(request.owner());
        }
        return a;
    }

    /** Whether a waiting attempt through this provider found the name busy (and so waits, queued). */
    boolean queued() {
        return !waiting.isEmpty();
    }

    /** How many owners' waiting attempts through this provider found the name busy. */
    int waiters() {
        return waiting.size();
    }
}
