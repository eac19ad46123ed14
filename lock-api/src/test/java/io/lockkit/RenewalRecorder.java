package io.lockkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/** Forwards every call to a provider and records each {@link #renew} call's renewals. */
final class RenewalRecorder implements LockProvider {

    private final LockProvider delegate;
    private final List<List<Renewal>> renewCalls = new CopyOnWriteArrayList<>();

    RenewalRecorder(LockProvider delegate) {
        this.delegate = delegate;
    }

    /** The renewals of each renew call so far, oldest first. */
    List<List<Renewal>> renewCalls() {
        return List.copyOf(renewCalls);
    }

    int renewals() {
        return renewCalls.stream().mapToInt(List::size).sum();
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        renewCalls.add(List.copyOf(renewals));
        return delegate.renew(renewals);
    }

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        return delegate.tryAcquire(request);
    }

    @Override
    public Release release(String name, String owner) {
        return delegate.release(name, owner);
    }

    @Override
    public void abandon(String name, String owner) {
        delegate.abandon(name, owner);
    }

    @Override
    public boolean forceRelease(String name) {
        return delegate.forceRelease(name);
    }

    @Override
    public Optional<LockState> inspect(String name) {
        return delegate.inspect(name);
    }

    @Override
    public Subscription subscribe(String name, WakeUpListener listener) {
        return delegate.subscribe(name, listener);
    }

    @Override
    public Set<Capability> capabilities() {
        return delegate.capabilities();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
