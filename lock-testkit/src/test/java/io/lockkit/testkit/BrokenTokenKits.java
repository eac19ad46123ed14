package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongUnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Broken providers whose fault is in how they keep fencing tokens: right on a fresh backend, wrong
 * once tokens grow past what their storage holds, which no test reaches by acquiring. Each passed
 * the whole kit before the kit could start a backend's tokens high
 * ({@link LockContractTest#startTokensAt}); {@link BrokenProvidersTest} names the kit test that
 * rejects it. Each wraps a client of {@link BrokenProvidersTest.BrokenKit}'s in-JVM table.
 */
final class BrokenTokenKits {

    private BrokenTokenKits() {}

    /** Tokens kept in a signed 32-bit int (an INTEGER column, an {@code int} field): past 2^31 - 1 they wrap negative. */
    static class IntTokensKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new TokensThrough(honest, token -> (int) token);
        }
    }

    /**
     * Tokens passed through a double (a Lua number, a JSON number read as one): past 2^53 the odd ones
     * round to an even neighbour, so 2^53 + 1 reads as 2^53, the token before it.
     */
    static class DoubleTokensKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new TokensThrough(honest, token -> (long) (double) token);
        }
    }

    /**
     * Acquisitions answer exact tokens, but inspect and listing read them through a double (a script
     * that converts the stored token to a number before answering): an operator, or a fenced
     * resource that checks a token against the inspected one, sees 2^53 for 2^53 + 1.
     */
    static class InspectsTokensThroughADoubleKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            LongUnaryOperator asDouble = token -> (long) (double) token;
            return new TokensThrough(honest, asDouble) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    return delegate().tryAcquire(request);
                }
            };
        }
    }

    /** Every token the provider answers (acquisitions, grants, inspection, listing) passed through {@code storage}. */
    private static class TokensThrough extends ForwardingLockProvider {
        private final LongUnaryOperator storage;

        TokensThrough(LockProvider honest, LongUnaryOperator storage) {
            super(honest);
            this.storage = storage;
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            Acquisition a = delegate().tryAcquire(request);
            return a.isAcquired() ? Acquisition.acquired(storage.applyAsLong(a.fencingToken())) : a;
        }

        @Override
        public Release release(String name, String owner) {
            Release r = delegate().release(name, owner);
            String grantee = r.grantee();
            return r.grantToken() > 0 && grantee != null
                    ? Release.grantedTo(grantee, storage.applyAsLong(r.grantToken()), r.grantWaitId())
                    : r;
        }

        @Override
        public Optional<LockState> inspect(String name) {
            return delegate().inspect(name).map(this::stored);
        }

        @Override
        public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
            ListPage page = delegate().list(prefix, cursor, pageSize);
            return new ListPage(
                    page.locks().stream()
                            .map(h -> new HeldLock(h.name(), stored(h.state())))
                            .toList(),
                    page.next());
        }

        private LockState stored(LockState s) {
            return new LockState(
                    s.holdCounts(), s.remainingLease(), storage.applyAsLong(s.fencingToken()), s.waiters());
        }
    }

    /**
     * Reuses the token of the last released hold of a name for the next one, as a backend that
     * keeps its counter in the lock's own key (deleted at release) would: every term after a
     * hand-over carries the number of the term before.
     */
    static class ReusesReleasedTokenKit extends BrokenProvidersTest.BrokenKit {
        /** Per name: the token the honest provider gave and the one this provider answered, of the current hold. */
        private final Map<String, long[]> current = new ConcurrentHashMap<>();
        /** Per name: the answered token of the last hold released. */
        private final Map<String, Long> released = new ConcurrentHashMap<>();

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    Acquisition a = delegate().tryAcquire(request);
                    if (!a.isAcquired()) {
                        return a;
                    }
                    long[] c = current.compute(
                            request.name(),
                            (n, old) -> old != null && old[0] == a.fencingToken()
                                    ? old
                                    : new long[] {a.fencingToken(), released.getOrDefault(n, a.fencingToken())});
                    return Acquisition.acquired(c[1]);
                }

                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    if (r.outcome() == Release.Outcome.RELEASED) {
                        long[] c = current.remove(name);
                        if (c != null) {
                            released.put(name, c[1]);
                        }
                    }
                    return r;
                }
            };
        }
    }
}
