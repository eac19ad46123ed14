package io.lockkit.testkit;

import io.lockkit.BackendUnavailableException;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/** A client of the backend that the kit can cut off from it: every call but the wake-ups then fails. */
final class PartitionableProvider extends ForwardingLockProvider {
    final AtomicBoolean cut = new AtomicBoolean();

    PartitionableProvider(LockProvider delegate) {
        super(delegate);
    }

    private void check(String name) {
        if (cut.get()) {
            throw new BackendUnavailableException(name, "cut off from the backend by the kit", null);
        }
    }

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        check(request.name());
        return super.tryAcquire(request);
    }

    @Override
    public Release release(String name, String owner) {
        check(name);
        return super.release(name, owner);
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        check(renewals.isEmpty() ? "" : renewals.get(0).name());
        return super.renew(renewals);
    }

    @Override
    public void abandon(String name, String owner, long waitId) {
        check(name);
        super.abandon(name, owner, waitId);
    }
}
