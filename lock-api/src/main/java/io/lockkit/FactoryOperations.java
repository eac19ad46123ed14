package io.lockkit;

import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@link LockOperations} over any {@link DistributedLockFactory}'s own operator methods: the view
 * {@link DistributedLockFactory#operations()} gives by default. Thread-safe as the factory is.
 */
final class FactoryOperations implements LockOperations {

    private final DistributedLockFactory factory;

    FactoryOperations(DistributedLockFactory factory) {
        this.factory = factory;
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return factory.inspect(name);
    }

    @Override
    public Stream<LockInfo> locks(String prefix) {
        return factory.locks(prefix);
    }

    @Override
    public boolean forceRelease(String name) {
        return factory.forceRelease(name);
    }

    @Override
    public HealthReport health(Duration probeTimeout) {
        return factory.health(probeTimeout);
    }

    @Override
    public String toString() {
        return "LockOperations[" + factory + "]";
    }
}
