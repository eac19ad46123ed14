package io.lockkit;

import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/** {@link LockHandle} over the factory's core: the handle is the owner. Thread-safe. */
final class OwnedLockHandle implements LockHandle {

    private final ProviderCalls calls;
    private final Ticker ticker;
    private final Holds holds;
    private final Hold hold;
    private volatile boolean closed;

    OwnedLockHandle(ProviderCalls calls, Ticker ticker, Holds holds, Hold hold) {
        this.calls = calls;
        this.ticker = ticker;
        this.holds = holds;
        this.hold = hold;
    }

    /** The hold this handle owns (a leadership's term watches it). */
    Hold hold() {
        return hold;
    }

    /** The holds this handle's hold is one of (a multi-lock releases its members together). */
    Holds holds() {
        return holds;
    }

    /** The ticker of this handle's factory (when a release of several holds is sent). */
    Ticker ticker() {
        return ticker;
    }

    /** What a release of this handle's hold runs once the hold has no count left: the handle is done. */
    Runnable whenEmpty() {
        return () -> closed = true;
    }

    @Override
    public String name() {
        return hold.name;
    }

    @Override
    public long fencingToken() {
        calls.require(Capability.FENCING_TOKENS, "fencing tokens");
        return hold.token;
    }

    @Override
    public boolean isValid() {
        return hold.isValid(ticker.nanoTime());
    }

    @Override
    public Duration remainingLease() {
        return hold.remaining(ticker.nanoTime());
    }

    @Override
    public int holdCount() {
        return hold.state() == Hold.State.HELD ? hold.count() : 0;
    }

    @Override
    public void acquireAgain() {
        holds.reacquire(hold);
    }

    @Override
    public void extend(Duration lease) {
        holds.extend(hold, LockOptions.builder().lease(lease).build().lease().orElseThrow());
    }

    @Override
    public void release() {
        holds.releaseOnce(hold, () -> closed = true);
    }

    @Override
    public void releaseAfter(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("delay must be zero or positive; was " + delay);
        }
        holds.releaseAfter(hold, delay, () -> closed = true);
    }

    @Override
    public CompletionStage<LockLostException> lost() {
        return hold.lost.minimalCompletionStage();
    }

    @Override
    public void close() {
        while (!closed) {
            switch (hold.state()) {
                case HELD -> release();
                case LOST -> {
                    closed = true;
                    if (hold.lossUnreported()) {
                        // Release what the backend may still have, then say so once.
                        holds.releaseOnce(hold, () -> {});
                    }
                    return;
                }
                case RELEASED -> {
                    closed = true;
                    if (hold.releasedByClose()) {
                        throw new LockLostException(hold.name, hold.token, "released when the lock factory closed");
                    }
                    return;
                }
            }
        }
    }

    @Override
    public String toString() {
        return "LockHandle[" + LockException.abbreviate(hold.name) + ", token " + hold.token + ", " + hold.state()
                + "]";
    }
}
