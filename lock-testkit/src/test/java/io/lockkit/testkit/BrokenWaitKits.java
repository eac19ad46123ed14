package io.lockkit.testkit;

import io.lockkit.BackendUnavailableException;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;

/**
 * Broken providers whose fault is in waiting: timeouts, retry hints and interrupts. Each wraps a client of
 * {@link BrokenProvidersTest.BrokenKit}'s in-JVM table; {@link BrokenProvidersTest} names the kit group
 * or test that rejects it.
 */
final class BrokenWaitKits {

    private BrokenWaitKits() {}

    static class IgnoresWaitTimeoutsKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    // Blocks until the lock is free, whatever the caller's wait.
                    while (true) {
                        Acquisition a = delegate().tryAcquire(request);
                        if (a.isAcquired()
                                || !request.waiting()
                                || Thread.currentThread().isInterrupted()) {
                            return a;
                        }
                        try {
                            Thread.sleep(10);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return a;
                        }
                    }
                }
            };
        }
    }

    /** Retry hints ten times as long as the time left on the holder's lease. */
    static class TenfoldRetryKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Acquisition a = delegate().tryAcquire(r);
                    return a.isAcquired() ? a : Acquisition.busy(a.retryAfter().multipliedBy(10));
                }
            };
        }
    }

    /** Turns an interrupt during a subscription into a backend failure, as the Redis provider once did. */
    static class FailsWhenInterruptedKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    if (Thread.currentThread().isInterrupted()) {
                        throw new BackendUnavailableException(name, "interrupted while subscribing to wake-ups", null);
                    }
                    return delegate().subscribe(name, listener);
                }
            };
        }
    }

    /** Clears the interrupt status of the thread that calls it. */
    static class SwallowsInterruptsKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Thread.interrupted();
                    return delegate().tryAcquire(r);
                }
            };
        }
    }
}
