package io.lockkit.jedis.fault;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.function.Function;

/**
 * Broken Redis providers for the negative controls of {@link PrimitiveHistoryFaultTest}, made in
 * worker JVMs (public, with public no-argument constructors): the history check must reject them.
 */
public final class BrokenRedisWorkers {

    private BrokenRedisWorkers() {}

    /** A semaphore that stores its capacity one too high: it admits N+1 permits. */
    public static final class OverCapacity implements Function<String, LockProvider> {
        @Override
        public LockProvider apply(String uri) {
            return new ForwardingLockProvider(Faults.provider(uri).build()) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Claim c = r.claim();
                    Claim wider = c.capacity() == Claim.UNBOUNDED
                            ? c
                            : new Claim(c.mode(), c.weight(), c.capacity() + 1, c.fair(), c.beside());
                    return delegate()
                            .tryAcquire(
                                    new LockRequest(r.name(), r.owner(), r.lease(), r.maxWait(), r.waitId(), wider));
                }
            };
        }
    }

    /** A write lock taken as a read: writers are admitted beside readers and each other. */
    public static final class SharedWrites implements Function<String, LockProvider> {
        @Override
        public LockProvider apply(String uri) {
            return new ForwardingLockProvider(Faults.provider(uri).build()) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Claim c = r.claim().mode() == Claim.Mode.EXCLUSIVE ? Claim.shared(1, Claim.UNBOUNDED) : r.claim();
                    return delegate()
                            .tryAcquire(new LockRequest(r.name(), r.owner(), r.lease(), r.maxWait(), r.waitId(), c));
                }
            };
        }
    }
}
