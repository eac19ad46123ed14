package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Broken providers whose fault is in what inspect and list answer. Each wraps a client of
 * {@link BrokenProvidersTest.BrokenKit}'s in-JVM table; {@link BrokenProvidersTest} names the kit group
 * or test that rejects it.
 */
final class BrokenInspectionKits {

    private BrokenInspectionKits() {}

    /** Inspect answers from a per-client cache that it keeps for ten seconds. */
    static class StaleInspectionKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                private final Map<String, Optional<LockState>> cache = new ConcurrentHashMap<>();
                private final Map<String, Long> cachedAt = new ConcurrentHashMap<>();

                @Override
                public Optional<LockState> inspect(String name) {
                    Long at = cachedAt.get(name);
                    if (at == null
                            || System.nanoTime() - at > Duration.ofSeconds(10).toNanos()) {
                        cache.put(name, delegate().inspect(name));
                        cachedAt.put(name, System.nanoTime());
                    }
                    return cache.get(name);
                }
            };
        }
    }

    /** Inspect answers the token before the holder's (as if read before the last acquisition). */
    static class StaleTokenInspectionKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Optional<LockState> inspect(String name) {
                    return delegate()
                            .inspect(name)
                            .map(s -> new LockState(
                                    s.holdCounts(),
                                    s.remainingLease(),
                                    Math.max(0, s.fencingToken() - 1),
                                    s.waiters()));
                }
            };
        }
    }

    /** Inspect holds a lock of the client for a second (a slow query on the client's only connection), and so does every other call. */
    static class BlockingInspectionKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            ReentrantLock connection = new ReentrantLock();
            return new ForwardingLockProvider(honest) {
                @Override
                public Optional<LockState> inspect(String name) {
                    return on(() -> {
                        LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
                        return delegate().inspect(name);
                    });
                }

                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return on(() -> delegate().tryAcquire(r));
                }

                @Override
                public Release release(String name, String owner) {
                    return on(() -> delegate().release(name, owner));
                }

                private <T> T on(java.util.function.Supplier<T> call) {
                    connection.lock();
                    try {
                        return call.get();
                    } finally {
                        connection.unlock();
                    }
                }
            };
        }
    }

    /** Listing leaves out the last page when it is not full (an off-by-one in the paging loop). */
    static class DropsLastPageKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
                    ListPage page = delegate().list(prefix, cursor, pageSize);
                    return page.next() == null && page.locks().size() < pageSize ? new ListPage(List.of(), null) : page;
                }
            };
        }
    }

    /** Listing passes the prefix on as a pattern, as an unescaped SCAN MATCH or LIKE would. */
    static class PatternPrefixKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
                    int wild = 0;
                    StringBuilder regex = new StringBuilder();
                    while (wild < prefix.length() && "*?%_".indexOf(prefix.charAt(wild)) < 0) {
                        wild++;
                    }
                    for (char c : prefix.toCharArray()) {
                        regex.append(
                                c == '?' || c == '_'
                                        ? "."
                                        : c == '*' || c == '%'
                                                ? ".*"
                                                : java.util.regex.Pattern.quote(String.valueOf(c)));
                    }
                    java.util.regex.Pattern pattern =
                            java.util.regex.Pattern.compile(regex + ".*", java.util.regex.Pattern.DOTALL);
                    ListPage page = delegate().list(prefix.substring(0, wild), cursor, pageSize);
                    return new ListPage(
                            page.locks().stream()
                                    .filter(h -> pattern.matcher(h.name()).matches())
                                    .toList(),
                            page.next());
                }
            };
        }
    }
}
