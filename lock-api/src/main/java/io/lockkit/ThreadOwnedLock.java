package io.lockkit;

import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** {@link DistributedLock} over the factory's core; each thread is its own owner. Thread-safe. */
final class ThreadOwnedLock implements DistributedLock {

    private final ThreadHolds threads;
    private final OperatorCalls operations;
    private final ProviderCalls calls;
    private final Ticker ticker;
    private final String name;
    private final ThreadSide side;

    ThreadOwnedLock(
            ThreadHolds threads,
            OperatorCalls operations,
            ProviderCalls calls,
            Ticker ticker,
            String name,
            ThreadSide side) {
        this.side = side;
        this.threads = threads;
        this.operations = operations;
        this.calls = calls;
        this.ticker = ticker;
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void lock() {
        lockUninterruptibly(null);
    }

    @Override
    public void lock(Duration lease) {
        lockUninterruptibly(checkLease(lease));
    }

    private void lockUninterruptibly(@Nullable Duration lease) {
        try {
            threads.lockForThread(name, side, lease, null, false);
        } catch (InterruptedException e) {
            throw new AssertionError("an uninterruptible wait was interrupted", e);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        threads.lockForThread(name, side, null, null, true);
    }

    @Override
    public boolean tryLock() {
        try {
            return threads.lockForThread(name, side, null, Duration.ZERO, false);
        } catch (InterruptedException e) {
            throw new AssertionError("a wait of zero cannot be interrupted", e);
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new IllegalArgumentException("unit must not be null");
        }
        // Lock's contract: a time of zero or less means "do not wait".
        long nanos = Math.max(0, unit.toNanos(time));
        Duration wait = Duration.ofNanos(nanos);
        if (wait.compareTo(LockOptions.MAX_DURATION) > 0) {
            wait = LockOptions.MAX_DURATION;
        }
        return threads.lockForThread(name, side, null, wait, true);
    }

    @Override
    public boolean tryLock(Duration wait, @Nullable Duration lease) throws InterruptedException {
        LockOptions.Builder b = LockOptions.builder().waitAtMost(wait); // validates both arguments
        if (lease != null) {
            b.lease(lease);
        }
        b.build();
        return threads.lockForThread(name, side, lease, wait, true);
    }

    @Override
    public void unlock() {
        threads.unlockForThread(name, side);
    }

    @Override
    public boolean isLocked() {
        return operations.isLocked(name);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        Hold h = threads.currentThreadHold(name, side);
        return h != null && h.isValid(ticker.nanoTime());
    }

    @Override
    public int getHoldCount() {
        Hold h = threads.currentThreadHold(name, side);
        return h != null && h.isValid(ticker.nanoTime()) ? h.count() : 0;
    }

    @Override
    public Duration remainingLease() {
        return held().remaining(ticker.nanoTime());
    }

    @Override
    public long fencingToken() {
        calls.require(Capability.FENCING_TOKENS, "fencing tokens");
        return held().token;
    }

    @Override
    public boolean forceUnlock() {
        return operations.forceRelease(name);
    }

    private Hold held() {
        Hold h = threads.currentThreadHold(name, side);
        if (h == null || h.state() != Hold.State.HELD) {
            throw new IllegalMonitorStateException(
                    "the current thread does not hold lock '" + LockException.abbreviate(name) + "'");
        }
        return h;
    }

    private static Duration checkLease(Duration lease) {
        return LockOptions.builder().lease(lease).build().lease().orElseThrow();
    }

    @Override
    public String toString() {
        return "DistributedLock[" + LockException.abbreviate(name)
                + (side == ThreadSide.WRITE ? "" : ", " + side.name().toLowerCase(java.util.Locale.ROOT)) + "]";
    }
}
