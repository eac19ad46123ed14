package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Broken providers whose fault shows in asynchronous acquisition and what is built on it: a call
 * that takes longer than its round trip, a thread it keeps. Each passed the whole kit before the
 * kit test that rejects it was written; {@link BrokenProvidersTest} names that test. Each wraps a
 * client of {@link BrokenProvidersTest.BrokenKit}'s in-JVM table.
 */
final class BrokenAsyncKits {

    private BrokenAsyncKits() {}

    /**
     * On a busy answer, waits a little (200 ms, or the retry hint when that is shorter) and tries
     * once more before answering, to spare the caller a wake-up when the holder is about to
     * release: blocking waits work as before, but each attempt of an asynchronous wait keeps a
     * thread of the factory that long, and a {@code tryAcquire} with no wait blocks.
     */
    static class RetriesOnceInsideTryAcquireKit extends BrokenProvidersTest.BrokenKit {
        private static final Duration SECOND_CHANCE = Duration.ofMillis(200);

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Acquisition a = delegate().tryAcquire(r);
                    if (a.isAcquired()) {
                        return a;
                    }
                    Duration pause = a.retryAfter().compareTo(SECOND_CHANCE) < 0 ? a.retryAfter() : SECOND_CHANCE;
                    try {
                        Thread.sleep(pause.toMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return a;
                    }
                    return delegate().tryAcquire(r);
                }
            };
        }
    }

    /**
     * Waits for a busy lock inside tryAcquire, polling until it is free, the caller's wait has
     * passed or the thread is interrupted (a blocking row lock, a blocking pop): blocking callers
     * see the same waits, but every asynchronous wait then occupies a thread of its factory.
     */
    static class WaitsInsideTryAcquireKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    long end = System.nanoTime()
                            + Math.min(
                                    request.maxWait().toNanos(),
                                    Duration.ofMinutes(1).toNanos());
                    while (true) {
                        Acquisition a = delegate().tryAcquire(request);
                        if (a.isAcquired()
                                || System.nanoTime() - end >= 0
                                || Thread.currentThread().isInterrupted()) {
                            return a;
                        }
                        LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
                    }
                }
            };
        }
    }
}
