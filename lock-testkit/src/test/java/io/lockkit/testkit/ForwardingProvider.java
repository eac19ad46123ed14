package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/** A provider that forwards every call; broken providers override one behaviour. */
abstract class ForwardingProvider implements LockProvider {

    protected final LockProvider delegate;

    ForwardingProvider(LockProvider delegate) {
        this.delegate = delegate;
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
    public List<Renewal> renew(List<Renewal> renewals) {
        return delegate.renew(renewals);
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
