package io.lockkit.testkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockState;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Broken providers whose fault is in how a backend stores, compares, inspects or lists lock names.
 * Each passed the whole kit before the kit test that rejects it was written; {@link
 * BrokenProvidersTest} names that test.
 */
final class BrokenNameKits {

    private BrokenNameKits() {}

    /**
     * Every name is stored as {@link #stored(String)} makes it; listing finds names by their stored
     * form and shows them so. Two names with one stored form are one lock.
     */
    abstract static class StoredNamesKit extends BrokenProvidersTest.BrokenKit {
        abstract String stored(String name);

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return delegate()
                            .tryAcquire(
                                    new LockRequest(stored(r.name()), r.owner(), r.lease(), r.maxWait(), r.waitId()));
                }

                @Override
                public Release release(String name, String owner) {
                    return delegate().release(stored(name), owner);
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    List<Renewal> gone = delegate()
                            .renew(renewals.stream()
                                    .map(r -> new Renewal(stored(r.name()), r.owner(), r.lease()))
                                    .toList());
                    return renewals.stream()
                            .filter(r -> gone.contains(new Renewal(stored(r.name()), r.owner(), r.lease())))
                            .toList();
                }

                @Override
                public void abandon(String name, String owner, long waitId) {
                    delegate().abandon(stored(name), owner, waitId);
                }

                @Override
                public boolean forceRelease(String name) {
                    return delegate().forceRelease(stored(name));
                }

                @Override
                public Optional<LockState> inspect(String name) {
                    return delegate().inspect(stored(name));
                }

                @Override
                public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
                    return delegate().list(stored(prefix), cursor, pageSize);
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    return delegate().subscribe(stored(name), listener);
                }
            };
        }
    }

    /** A normalizing store: names are kept in Unicode NFC, so {@code é} as U+00E9 and as {@code e} + U+0301 are one lock. */
    static class NormalizesNamesKit extends StoredNamesKit {
        @Override
        String stored(String name) {
            return Normalizer.normalize(name, Normalizer.Form.NFC);
        }
    }

    /**
     * Names are kept in a column of 8,192 bytes of UTF-8: a name of 8,192 ASCII characters fits, one
     * of as many characters outside ASCII is cut, and names that differ only past the cut are one lock.
     */
    static class Utf8ByteColumnKit extends StoredNamesKit {
        private static final int BYTES = 8192;

        @Override
        String stored(String name) {
            if (name.getBytes(StandardCharsets.UTF_8).length <= BYTES) {
                return name;
            }
            int bytes = 0;
            int end = 0;
            while (end < name.length()) {
                int cp = name.codePointAt(end);
                int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
                if (bytes + size > BYTES) {
                    break;
                }
                bytes += size;
                end += Character.charCount(cp);
            }
            return name.substring(0, end);
        }
    }

    /** Listing matches the prefix case-insensitively (as a case-insensitive collation's comparison would). */
    static class CaseInsensitivePrefixKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
                    ListPage page = delegate().list("", cursor, pageSize);
                    return new ListPage(
                            page.locks().stream()
                                    .filter(h -> h.name().regionMatches(true, 0, prefix, 0, prefix.length()))
                                    .toList(),
                            page.next());
                }
            };
        }
    }

    /**
     * Listing shows locks whose lease lapsed while nothing looked at them: the table drops a lapsed
     * entry only when a call touches its name (as the in-JVM table does), and listing does not check
     * leases, so an entry nobody touched since its lapse is listed (with no lease left).
     */
    static class ListsLapsedLocksKit extends BrokenProvidersTest.BrokenKit {
        /** The entries of the table, with their lease deadlines (nanoTime), shared by every client. */
        private final Map<String, Entry> entries = new ConcurrentHashMap<>();

        private record Entry(String owner, long token, long deadline) {}

        /** A call touched {@code name}: its entry goes if its lease had lapsed. */
        private void touched(String name) {
            entries.computeIfPresent(name, (n, e) -> e.deadline - System.nanoTime() <= 0 ? null : e);
        }

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    touched(r.name());
                    long deadline = System.nanoTime() + r.lease().toNanos();
                    Acquisition a = delegate().tryAcquire(r);
                    if (a.isAcquired()) {
                        entries.merge(
                                r.name(),
                                new Entry(r.owner(), a.fencingToken(), deadline),
                                (old, now) -> old.owner.equals(now.owner)
                                        ? new Entry(now.owner, now.token, Math.max(old.deadline, now.deadline))
                                        : now);
                    }
                    return a;
                }

                @Override
                public Release release(String name, String owner) {
                    touched(name);
                    Release r = delegate().release(name, owner);
                    if (r.outcome() != Release.Outcome.STILL_HELD) {
                        entries.computeIfPresent(name, (n, e) -> e.owner.equals(owner) ? null : e);
                    }
                    return r;
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    renewals.forEach(r -> touched(r.name()));
                    long now = System.nanoTime();
                    List<Renewal> gone = delegate().renew(renewals);
                    for (Renewal r : renewals) {
                        if (!gone.contains(r)) {
                            entries.computeIfPresent(
                                    r.name(),
                                    (n, e) -> e.owner.equals(r.owner())
                                            ? new Entry(
                                                    e.owner,
                                                    e.token,
                                                    now + r.lease().toNanos())
                                            : e);
                        }
                    }
                    return gone;
                }

                @Override
                public boolean forceRelease(String name) {
                    entries.remove(name);
                    return delegate().forceRelease(name);
                }

                @Override
                public Optional<LockState> inspect(String name) {
                    Optional<LockState> state = delegate().inspect(name);
                    if (state.isEmpty()) {
                        entries.remove(name); // looked at: the table dropped it
                    }
                    return state;
                }

                @Override
                public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
                    ListPage page = delegate().list(prefix, cursor, pageSize);
                    if (page.next() != null) {
                        return page;
                    }
                    // The last page: the entries the honest table no longer shows but this one still has.
                    List<HeldLock> locks = new ArrayList<>(page.locks());
                    Set<String> shown = new HashSet<>();
                    locks.forEach(h -> shown.add(h.name()));
                    long now = System.nanoTime();
                    entries.forEach((name, e) -> {
                        if (name.startsWith(prefix) && !shown.contains(name) && e.deadline - now <= 0) {
                            locks.add(
                                    new HeldLock(name, new LockState(Map.of(e.owner, 1), Duration.ZERO, e.token, -1)));
                        }
                    });
                    return new ListPage(locks, null);
                }
            };
        }
    }

    /**
     * Inspect names as holder the latest owner that asked for the lock, whether it got it or not
     * (a "last requester" column updated by every attempt), with the holder's count and token.
     */
    static class InspectsLatestContenderKit extends BrokenProvidersTest.BrokenKit {
        private final Map<String, String> latest = new ConcurrentHashMap<>();

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    latest.put(r.name(), r.owner());
                    return delegate().tryAcquire(r);
                }

                @Override
                public Optional<LockState> inspect(String name) {
                    return delegate().inspect(name).map(s -> {
                        String asked = latest.get(name);
                        if (asked == null || s.holdCounts().size() != 1) {
                            return s;
                        }
                        int count = s.holdCounts().values().iterator().next();
                        return new LockState(Map.of(asked, count), s.remainingLease(), s.fencingToken(), s.waiters());
                    });
                }
            };
        }
    }

    /**
     * Listing pages by offset ({@code ORDER BY name LIMIT n OFFSET k}; the cursor is the offset):
     * when locks listed on an earlier page are released, the later ones move up, and the next page
     * skips as many of them.
     */
    static class OffsetPagingKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
                    List<HeldLock> all = new ArrayList<>();
                    String c = null;
                    do {
                        ListPage page = delegate().list(prefix, c, 1000);
                        all.addAll(page.locks());
                        c = page.next();
                    } while (c != null);
                    all.sort(java.util.Comparator.comparing(HeldLock::name));
                    int offset = cursor == null ? 0 : Integer.parseInt(cursor);
                    int end = Math.min(all.size(), offset + pageSize);
                    return new ListPage(
                            all.subList(Math.min(offset, end), end), end < all.size() ? Integer.toString(end) : null);
                }
            };
        }
    }

    /** The backend keeps only the first 512 characters of a name. */
    static class TruncatesNamesKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    return delegate()
                            .tryAcquire(new LockRequest(cut(r.name()), r.owner(), r.lease(), r.maxWait(), r.waitId()));
                }

                @Override
                public Release release(String name, String owner) {
                    return delegate().release(cut(name), owner);
                }

                @Override
                public List<Renewal> renew(List<Renewal> renewals) {
                    List<Renewal> cutRenewals = renewals.stream()
                            .map(r -> new Renewal(cut(r.name()), r.owner(), r.lease()))
                            .toList();
                    List<Renewal> gone = delegate().renew(cutRenewals);
                    return renewals.stream()
                            .filter(r -> gone.stream()
                                    .anyMatch(g -> g.name().equals(cut(r.name()))
                                            && g.owner().equals(r.owner())))
                            .toList();
                }

                @Override
                public void abandon(String name, String owner, long waitId) {
                    delegate().abandon(cut(name), owner, waitId);
                }

                @Override
                public boolean forceRelease(String name) {
                    return delegate().forceRelease(cut(name));
                }

                @Override
                public Optional<LockState> inspect(String name) {
                    return delegate().inspect(cut(name));
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    return delegate().subscribe(cut(name), listener);
                }

                private String cut(String name) {
                    return name.length() > 512 ? name.substring(0, 512) : name;
                }
            };
        }
    }
}
