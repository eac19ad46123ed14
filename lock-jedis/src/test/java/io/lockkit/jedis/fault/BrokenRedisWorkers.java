package io.lockkit.jedis.fault;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.function.Function;
import java.util.function.UnaryOperator;

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
            return rewriting(
                    uri,
                    c -> c.capacity() == Claim.UNBOUNDED
                            ? c
                            : new Claim(c.mode(), c.weight(), c.capacity() + 1, c.fair(), c.beside()));
        }
    }

    /** A write lock taken as a read: writers are admitted beside readers and each other. */
    public static final class SharedWrites implements Function<String, LockProvider> {
        @Override
        public LockProvider apply(String uri) {
            return rewriting(uri, c -> c.mode() == Claim.Mode.EXCLUSIVE ? Claim.shared(1, Claim.UNBOUNDED) : c);
        }
    }

    /** The Redis provider of the fault tests, with every acquisition's claim rewritten by {@code claim}. */
    private static LockProvider rewriting(String uri, UnaryOperator<Claim> claim) {
        return new ForwardingLockProvider(Faults.provider(uri).build()) {
            @Override
            public Acquisition tryAcquire(LockRequest r) {
                return delegate()
                        .tryAcquire(new LockRequest(
                                r.name(), r.owner(), r.lease(), r.maxWait(), r.waitId(), claim.apply(r.claim())));
            }
        };
    }
}
