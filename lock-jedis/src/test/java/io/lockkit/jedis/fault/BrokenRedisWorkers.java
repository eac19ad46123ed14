package io.lockkit.jedis.fault;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.List;
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

    /**
     * A multi-lock whose members, when attempted together in one call, are taken as shared holds:
     * two multi-locks can then hold one name at once (the members waited for one by one stay
     * exclusive).
     */
    public static final class SharedMultiLockMembers implements Function<String, LockProvider> {
        @Override
        public LockProvider apply(String uri) {
            return new ForwardingLockProvider(Faults.provider(uri).build()) {
                @Override
                public List<Acquisition> tryAcquireAll(List<LockRequest> requests) {
                    return delegate()
                            .tryAcquireAll(requests.stream()
                                    .map(r -> new LockRequest(
                                            r.name(),
                                            r.owner(),
                                            r.lease(),
                                            r.maxWait(),
                                            r.waitId(),
                                            Claim.shared(1, Claim.UNBOUNDED)))
                                    .toList());
                }
            };
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
