package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Broken providers whose fault is a call that never returns. Before the kit bounded its own calls
 * (the clean-up after each test above all), each of them made the kit run hang instead of fail;
 * {@link BrokenProvidersTest} names the kit test that now rejects it. Each wraps a client of
 * {@link BrokenProvidersTest.BrokenKit}'s in-JVM table.
 */
final class BrokenCallKits {

    private BrokenCallKits() {}

    /**
     * Every call on a name runs under that name's lock of the backend (a row lock, shared by every
     * client), but {@code inspect} of a held lock returns early without unlocking it: the lock stays
     * with the inspecting thread, and every later call on that name from any other thread (the
     * holder's release, a watchdog's renewal, the kit's clean-up closing the holder's client) blocks
     * for good, uninterruptibly.
     */
    static class InspectKeepsTheNameLockedKit extends BrokenProvidersTest.BrokenKit {
        private final Map<String, ReentrantLock> rows = new ConcurrentHashMap<>();

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Optional<LockState> inspect(String name) {
                    ReentrantLock row = rows.computeIfAbsent(name, n -> new ReentrantLock());
                    row.lock();
                    Optional<LockState> state = delegate().inspect(name);
                    if (state.isPresent()) {
                        return state; // the fault: this path forgets the unlock
                    }
                    row.unlock();
                    return state;
                }

                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    return on(request.name(), () -> delegate().tryAcquire(request));
                }

                @Override
                public Release release(String name, String owner) {
                    return on(name, () -> delegate().release(name, owner));
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    List<Renewal> gone = new ArrayList<>();
                    for (Renewal r : renewals) {
                        gone.addAll(on(r.name(), () -> delegate().renew(List.of(r))));
                    }
                    return gone;
                }

                @Override
                public boolean forceRelease(String name) {
                    return on(name, () -> delegate().forceRelease(name));
                }

                private <T> T on(String name, Supplier<T> call) {
                    ReentrantLock row = rows.computeIfAbsent(name, n -> new ReentrantLock());
                    row.lock();
                    try {
                        return call.get();
                    } finally {
                        row.unlock();
                    }
                }
            };
        }
    }

    /**
     * {@code close()} waits for the provider's background thread, which waits for {@code close()} to
     * let it go first: it never returns, and ignores interrupts (a join of a thread that does).
     */
    static class CloseNeverReturnsKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public void close() {
                    super.close();
                    new Semaphore(0).acquireUninterruptibly();
                }
            };
        }
    }

    /**
     * A new provider waits for its backend's greeting without a timeout, and the backend never sends
     * one: {@code newProvider()} never returns (uninterruptibly). A group that reads the capabilities
     * before each test asks for a provider where no test timeout reaches.
     */
    static class NewProviderNeverReturnsKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            new Semaphore(0).acquireUninterruptibly();
            return honest;
        }
    }
}
