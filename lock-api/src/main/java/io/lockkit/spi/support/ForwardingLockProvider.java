package io.lockkit.spi.support;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A provider that forwards every call to another, for decorators (metrics, fault injection,
 * test doubles) that override only what they change. Thread-safe if the delegate is.
 */
public abstract class ForwardingLockProvider implements LockProvider {

    private final LockProvider delegate;

    protected ForwardingLockProvider(LockProvider delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The provider calls are forwarded to. */
    protected final LockProvider delegate() {
        return delegate;
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
    public void abandon(String name, String owner, long waitId) {
        delegate.abandon(name, owner, waitId);
    }

    @Override
    public void useClientId(String clientId) {
        delegate.useClientId(clientId);
    }

    @Override
    public boolean forceRelease(String name) {
        return delegate.forceRelease(name);
    }

    @Override
    public void setCapacity(String name, int capacity) {
        delegate.setCapacity(name, capacity);
    }

    @Override
    public Optional<LockState> inspect(String name) {
        return delegate.inspect(name);
    }

    @Override
    public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
        return delegate.list(prefix, cursor, pageSize);
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

    @Override
    public String toString() {
        return delegate.toString();
    }
}
