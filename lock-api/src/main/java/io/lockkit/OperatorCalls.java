package io.lockkit;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The operator's view of one {@link ProviderLockFactory} ({@link DistributedLockFactory#operations()}):
 * inspect, list and force-release locks whoever holds them, and check the factory's health through
 * its {@link FactoryHealth}. Made once per factory. Runs on the caller's thread; owns nothing.
 * Thread-safe.
 */
final class OperatorCalls implements LockOperations {

    private final ProviderCalls calls;
    private final LockProvider provider;
    private final Gate gate;
    private final Holds holds;
    private final WaitQueues rooms;
    private final FactoryHealth health;

    OperatorCalls(ProviderCalls calls, Gate gate, Holds holds, WaitQueues rooms, FactoryHealth health) {
        this.calls = calls;
        this.provider = calls.provider();
        this.gate = gate;
        this.holds = holds;
        this.rooms = rooms;
        this.health = health;
    }

    /** See {@link LockOperations#forceRelease}: this client's holds of it are lost, its waiters look again. */
    @Override
    public boolean forceRelease(String name) {
        calls.require(Capability.FORCE_RELEASE, "force release");
        LockNames.check(name);
        gate.ensureOpen(name);
        boolean wasHeld = provider.forceRelease(name);
        holds.forceReleased(name);
        rooms.handedTo(name, null);
        return wasHeld;
    }

    @Override
    public void setCapacity(String name, int capacity) {
        calls.require(Capability.SHARED_HOLDS, "a stored capacity (capability SHARED_HOLDS)");
        LockNames.check(name);
        io.lockkit.spi.support.Arguments.atLeast(capacity, 1, "capacity");
        gate.ensureOpen(name);
        provider.setCapacity(name, capacity);
        rooms.recheck(name);
    }

    /** Whether anyone holds {@code name} (see {@link DistributedLock#isLocked()}). */
    boolean isLocked(String name) {
        calls.require(Capability.INSPECTION, "inspecting a lock");
        gate.ensureOpen(name);
        return provider.inspect(name).isPresent();
    }

    /** The backend's state of {@code name} (a semaphore's permits in use), empty when nobody holds it. */
    Optional<LockProvider.LockState> state(String name) {
        calls.require(Capability.INSPECTION, "inspecting a lock");
        gate.ensureOpen(name);
        return provider.inspect(name);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        calls.require(Capability.INSPECTION, "inspecting a lock");
        LockNames.check(name);
        gate.ensureOpen(name);
        return provider.inspect(name).flatMap(state -> LockListing.info(name, state));
    }

    @Override
    public Stream<LockInfo> locks(String prefix) {
        calls.require(Capability.LISTING, "listing locks");
        LockListing.checkPrefix(prefix);
        Runnable checkOpen = () -> {
            if (gate.isClosed()) {
                throw new LockException(null, "the lock factory is closed");
            }
        };
        checkOpen.run();
        return LockListing.stream(provider, prefix, LockListing.PAGE_SIZE, checkOpen);
    }

    @Override
    public HealthReport health(Duration probeTimeout) {
        return health.check(probeTimeout);
    }

    @Override
    public String toString() {
        return "LockOperations[" + provider + "]";
    }
}
