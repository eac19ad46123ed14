package io.lockkit;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Forwards every call to a provider and records each {@link #renew} call's renewals. */
final class RenewalRecorder extends ForwardingLockProvider {

    private final List<List<Renewal>> renewCalls = new CopyOnWriteArrayList<>();

    RenewalRecorder(LockProvider delegate) {
        super(delegate);
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
        return super.renew(renewals);
    }
}
