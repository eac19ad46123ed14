package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Forwards to a provider and counts the renewals it is asked for, per lock name. */
final class RecordingProvider implements LockProvider {

    private final LockProvider delegate;
    private final ConcurrentHashMap<String, LongAdder> renewals = new ConcurrentHashMap<>();

    RecordingProvider(LockProvider delegate) {
        this.delegate = delegate;
    }

    long renewalsOf(String name) {
        LongAdder n = renewals.get(name);
        return n == null ? 0 : n.sum();
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
    public List<Renewal> renew(List<Renewal> list) {
        for (Renewal r : list) {
            renewals.computeIfAbsent(r.name(), n -> new LongAdder()).increment();
        }
        return delegate.renew(list);
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

    @Override
    public String toString() {
        return delegate.toString();
    }
}
