package io.lockkit;

import io.lockkit.spi.Claim;
import io.lockkit.spi.support.Arguments;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * {@link DistributedReadWriteLock} of two {@link ThreadOwnedLock}s of one name, and handle holds
 * through the factory's {@link Acquirer} (a read hold a shared claim of weight 1, unbounded).
 * Thread-safe, immutable.
 */
final class ThreadOwnedReadWriteLock implements DistributedReadWriteLock {

    private static final Claim READ = Claim.shared(1, Claim.UNBOUNDED);

    private final String name;
    private final DistributedLock read;
    private final DistributedLock write;
    private final Acquirer acquirer;

    ThreadOwnedReadWriteLock(String name, DistributedLock read, DistributedLock write, Acquirer acquirer) {
        this.name = name;
        this.read = read;
        this.write = write;
        this.acquirer = acquirer;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    @Override
    public LockHandle acquireRead(LockOptions options) throws InterruptedException {
        return orThrow(tryAcquireRead(options), options);
    }

    @Override
    public Optional<LockHandle> tryAcquireRead(LockOptions options) throws InterruptedException {
        return acquirer.tryAcquire(name, require(options), READ);
    }

    @Override
    public CompletionStage<LockHandle> acquireReadAsync(LockOptions options) {
        return async(options, READ);
    }

    @Override
    public LockHandle acquireWrite(LockOptions options) throws InterruptedException {
        return orThrow(tryAcquireWrite(options), options);
    }

    @Override
    public Optional<LockHandle> tryAcquireWrite(LockOptions options) throws InterruptedException {
        return acquirer.tryAcquire(name, require(options), Claim.EXCLUSIVE);
    }

    @Override
    public CompletionStage<LockHandle> acquireWriteAsync(LockOptions options) {
        return async(options, Claim.EXCLUSIVE);
    }

    private CompletionStage<LockHandle> async(LockOptions options, Claim claim) {
        Duration waited = require(options).waitTime().orElse(Duration.ZERO);
        return acquirer.startAsync(
                name, options, claim, h -> h.orElseThrow(() -> new LockNotAcquiredException(name, waited)));
    }

    private LockHandle orThrow(Optional<LockHandle> h, LockOptions options) {
        return h.orElseThrow(
                () -> new LockNotAcquiredException(name, options.waitTime().orElse(Duration.ZERO)));
    }

    private static LockOptions require(LockOptions options) {
        return Arguments.notNull(options, "options");
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock[" + LockException.abbreviate(name) + "]";
    }
}
