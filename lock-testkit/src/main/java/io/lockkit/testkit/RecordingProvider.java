package io.lockkit.testkit;

import io.lockkit.spi.ForwardingLockProvider;
import io.lockkit.spi.LockProvider;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Forwards to a provider and counts the renewals it is asked for, per lock name. */
final class RecordingProvider extends ForwardingLockProvider {

    private final ConcurrentHashMap<String, LongAdder> renewals = new ConcurrentHashMap<>();

    RecordingProvider(LockProvider delegate) {
        super(delegate);
    }

    long renewalsOf(String name) {
        LongAdder n = renewals.get(name);
        return n == null ? 0 : n.sum();
    }

    @Override
    public List<Renewal> renew(List<Renewal> list) {
        for (Renewal r : list) {
            renewals.computeIfAbsent(r.name(), n -> new LongAdder()).increment();
        }
        return super.renew(list);
    }
}
