package io.lockkit;

import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.support.Arguments;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * {@link DistributedSemaphore} over the factory's {@link Acquirer}: each acquisition a handle hold
 * with a fresh owner and a shared claim of its permits, so permits count per hold and every hold
 * has its own lease, token and loss report. Thread-safe; holds no state of its own.
 */
final class HandleSemaphore implements DistributedSemaphore {

    private final Acquirer acquirer;
    private final OperatorCalls operations;
    private final LockOptions defaults;
    private final String name;
    private final int capacity;
    private final boolean fair;

    /**
     * @throws IllegalArgumentException when {@code capacity} is below 1
     */
    HandleSemaphore(
            Acquirer acquirer,
            OperatorCalls operations,
            LockOptions defaults,
            String name,
            int capacity,
            boolean fair) {
        Arguments.atLeast(capacity, 1, "capacity");
        this.acquirer = acquirer;
        this.operations = operations;
        this.defaults = defaults;
        this.name = name;
        this.capacity = capacity;
        this.fair = fair;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public boolean isFair() {
        return fair;
    }

    @Override
    public LockHandle acquire(int permits, LockOptions options) throws InterruptedException {
        return tryAcquire(permits, options)
                .orElseThrow(() ->
                        new LockNotAcquiredException(name, options.waitTime().orElse(Duration.ZERO)));
    }

    @Override
    public LockHandle acquire() throws InterruptedException {
        return acquire(1, defaults);
    }

    @Override
    public Optional<LockHandle> tryAcquire(int permits, LockOptions options) throws InterruptedException {
        Claim claim = claim(permits);
        return acquirer.tryAcquire(name, requireOptions(options), claim);
    }

    @Override
    public Optional<LockHandle> tryAcquire() {
        try {
            return tryAcquire(1, defaults.toBuilder().noWait().build());
        } catch (InterruptedException e) {
            throw new AssertionError("a wait of zero cannot be interrupted", e);
        }
    }

    @Override
    public CompletionStage<LockHandle> acquireAsync(int permits, LockOptions options) {
        Claim claim = claim(permits);
        LockOptions o = requireOptions(options);
        Duration waited = o.waitTime().orElse(Duration.ZERO);
        return acquirer.startAsync(
                name, o, claim, handle -> handle.orElseThrow(() -> new LockNotAcquiredException(name, waited)));
    }

    @Override
    public int availablePermits() {
        Optional<LockState> state = operations.state(name);
        int stored = state.map(LockState::capacity)
                .filter(c -> c != LockState.NO_CAPACITY)
                .orElse(capacity);
        int held = state.map(LockState::sharedWeight).orElse(0);
        return Math.max(0, stored - held);
    }

    /**
     * @throws IllegalArgumentException naming {@code permits} when it is below 1 or above the capacity
     */
    private Claim claim(int permits) {
        Arguments.atLeast(permits, 1, "permits");
        if (permits > capacity) {
            throw new IllegalArgumentException("permits must not exceed the capacity " + capacity + ", was " + permits);
        }
        Claim c = Claim.shared(permits, capacity);
        return fair ? c.fairly() : c;
    }

    private static LockOptions requireOptions(LockOptions options) {
        return Arguments.notNull(options, "options");
    }

    @Override
    public String toString() {
        return "DistributedSemaphore[" + LockException.abbreviate(name) + ", capacity " + capacity
                + (fair ? ", fair" : "") + "]";
    }
}
