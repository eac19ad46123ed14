package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Broken providers whose fault is in closing: what a closed client answers, and what closing
 * one client frees. Each wraps a client of
 * {@link BrokenProvidersTest.BrokenKit}'s in-JVM table; {@link BrokenProvidersTest} names the kit group
 * or test that rejects it.
 */
final class BrokenCloseKits {

    private BrokenCloseKits() {}

    /**
     * Closing any client frees every lock any client of the backend took. (The kit once opened and
     * closed a provider mid-test to read its capabilities, which this provider turned into a
     * failure of its own; it now reads them from a provider it keeps until the test ends.)
     */
    static class CloseFreesEveryoneKit extends BrokenProvidersTest.BrokenKit {
        private final Set<String> names = ConcurrentHashMap.newKeySet();

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    names.add(r.name());
                    return delegate().tryAcquire(r);
                }

                @Override
                public void close() {
                    names.forEach(n -> delegate().forceRelease(n));
                    super.close();
                }
            };
        }
    }

    /** Once closed, every call throws IllegalStateException, as the in-JVM provider once did. */
    static class IllegalStateWhenClosedKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ClosedGate(honest) {
                @Override
                RuntimeException closedFailure(String name) {
                    return new IllegalStateException("closed (lock '" + name + "')");
                }
            };
        }
    }

    /** Close is ignored: the provider keeps answering, as one whose pool reconnects on demand would. */
    static class AnswersWhenClosedKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public void close() {
                    // the fault: nothing is closed
                }
            };
        }
    }

    /** Fails every call after close with {@link #closedFailure}, before the delegate sees it. */
    abstract static class ClosedGate extends ForwardingLockProvider {
        private volatile boolean closed;

        ClosedGate(LockProvider delegate) {
            super(delegate);
        }

        abstract RuntimeException closedFailure(String name);

        private void check(String name) {
            if (closed) {
                throw closedFailure(name);
            }
        }

        @Override
        public Acquisition tryAcquire(LockRequest r) {
            check(r.name());
            return super.tryAcquire(r);
        }

        @Override
        public Release release(String name, String owner) {
            check(name);
            return super.release(name, owner);
        }

        @Override
        public List<Renewal> renew(List<Renewal> renewals) {
            check(renewals.isEmpty() ? null : renewals.get(0).name());
            return super.renew(renewals);
        }

        @Override
        public void abandon(String name, String owner, long waitId) {
            check(name);
            super.abandon(name, owner, waitId);
        }

        @Override
        public boolean forceRelease(String name) {
            check(name);
            return super.forceRelease(name);
        }

        @Override
        public Optional<LockState> inspect(String name) {
            check(name);
            return super.inspect(name);
        }

        @Override
        public Subscription subscribe(String name, WakeUpListener listener) {
            check(name);
            return super.subscribe(name, listener);
        }

        @Override
        public void close() {
            closed = true;
            super.close();
        }
    }
}
