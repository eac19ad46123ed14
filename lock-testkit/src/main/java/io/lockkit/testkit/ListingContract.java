package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Listing held locks" ({@link LockContractTest.Listing}): locks(prefix) lists the held locks of a
 * prefix, taken literally, page by page and lazily.
 */
abstract class ListingContract extends ContractGroup {

    /** More pages than any listing of a test's few locks takes, whatever else the backend holds. */
    private static final int MAX_PAGES = 100_000;

    ListingContract(LockContractTest kit) {
        super(kit);
    }

    @BeforeEach
    void requireListing() {
        assume(Capability.LISTING);
    }

    private Set<String> listed(DistributedLockFactory f, String prefix) {
        try (Stream<LockInfo> locks = f.operations().locks(prefix)) {
            return locks.map(LockInfo::name).collect(Collectors.toSet());
        }
    }

    /** Every lock {@code p.list} finds under {@code prefix}, page by page (the core's own filter left out). */
    private Set<String> listedBy(LockProvider p, String prefix) {
        Set<String> names = new HashSet<>();
        String cursor = null;
        do {
            LockProvider.ListPage page = p.list(prefix, cursor, 100);
            page.locks().forEach(h -> names.add(h.name()));
            cursor = page.next();
        } while (cursor != null);
        return names;
    }

    /** Takes each name for a new handle of {@code f}. */
    private void holdAll(DistributedLockFactory f, Collection<String> names) throws InterruptedException {
        for (String n : names) {
            f.acquire(n, LockOptions.noWait());
        }
    }

    @Test
    @DisplayName("locks(prefix) lists the held locks of that prefix, as inspect sees them, and no free or lapsed lock")
    void listsHeldLocksByPrefix() throws Exception {
        String prefix = name() + "/";
        DistributedLockFactory holder = client();
        List<String> held = List.of(prefix + "a", prefix + "b", prefix + "c/d");
        holdAll(holder, held);
        DistributedLock reentered = holder.getLock(prefix + "r");
        reentered.lock();
        reentered.lock();
        String released = prefix + "released";
        holder.acquire(released, LockOptions.noWait()).release();
        String outside = name() + "/a";
        holder.acquire(outside, LockOptions.noWait());
        Set<String> expected = new HashSet<>(held);
        expected.add(prefix + "r");
        if (has(Capability.EXPLICIT_LEASE)) {
            String lapsed = prefix + "lapsed";
            holder.acquire(lapsed, leaseOf(scaled(Duration.ofMillis(200))));
            await("the lapse")
                    .atMost(scaled(Duration.ofSeconds(5)))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> !has(Capability.INSPECTION)
                            || holder.operations().inspect(lapsed).isEmpty());
        }
        DistributedLockFactory operator = client();
        assertThat(listed(operator, prefix)).as("locks held under %s", prefix).isEqualTo(expected);
        assertThat(listed(operator, prefix + "c")).as("a longer prefix").containsExactly(prefix + "c/d");
        assertThat(listed(operator, ""))
                .as("everything")
                .containsAll(expected)
                .contains(outside)
                .doesNotContain(released);
        try (Stream<LockInfo> locks = operator.operations().locks(prefix)) {
            List<LockInfo> infos = locks.toList();
            for (LockInfo info : infos) {
                assertThat(info.holdCount())
                        .as("hold count of %s", info.name())
                        .isEqualTo(info.name().equals(prefix + "r") ? 2 : 1);
                assertThat(info.leaseLeft()).as("lease left of %s", info.name()).isPositive();
                if (has(Capability.INSPECTION)) {
                    LockInfo inspected =
                            operator.operations().inspect(info.name()).orElseThrow();
                    assertThat(info.owner()).isEqualTo(inspected.owner());
                    assertThat(info.fencingToken()).isEqualTo(inspected.fencingToken());
                }
            }
            assertThat(infos)
                    .extracting(LockInfo::clientId)
                    .as("one holder")
                    .containsOnly(infos.get(0).clientId());
        }
        reentered.unlock();
        reentered.unlock();
        assertThat(listed(operator, prefix)).as("after a release").doesNotContain(prefix + "r");
    }

    @Test
    @DisplayName("a prefix is taken literally: glob and LIKE characters (* ? [ ] \\ % _ { }) match only themselves")
    void prefixIsLiteral() throws Exception {
        String p = name() + "/";
        List<String> names = List.of(
                p + "a*1",
                p + "ab1",
                p + "a?2",
                p + "ac2",
                p + "a_3",
                p + "ad3",
                p + "a%4",
                p + "ae4",
                p + "[a]5",
                p + "a5",
                p + "\\6",
                p + "f6",
                p + "{7}",
                p + "}8",
                p + "%7B9");
        holdAll(client(), names);
        DistributedLockFactory operator = client();
        assertThat(listed(operator, p)).as("all of them").isEqualTo(Set.copyOf(names));
        LockProvider provider = provider();
        closeAfterTest(provider);
        for (String special : List.of("a*", "a?", "a_", "a%", "[a]", "\\", "{", "}", "%7B")) {
            Set<String> expected =
                    names.stream().filter(n -> n.startsWith(p + special)).collect(Collectors.toSet());
            assertThat(expected).as("names starting with %s", special).hasSize(1);
            assertThat(listed(operator, p + special))
                    .as("locks(\"…%s\")", special)
                    .isEqualTo(expected);
            assertThat(listedBy(provider, p + special))
                    .as("the provider's list(\"…%s\")", special)
                    .isEqualTo(expected);
        }
    }

    @Test
    @DisplayName("a lock whose lease lapsed while nothing looked at it is not listed")
    void lockLapsedUnseenIsNotListed() throws Exception {
        assume(Capability.EXPLICIT_LEASE);
        String prefix = name() + "/";
        DistributedLockFactory holder = client();
        holder.acquire(prefix + "held", LockOptions.noWait());
        Duration lease = scaled(Duration.ofMillis(300));
        holder.acquire(prefix + "lapsed", leaseOf(lease));
        // Not awaited: any look at the lock (an inspect, an attempt) could make a backend drop it.
        Thread.sleep(lease.multipliedBy(3).toMillis()); // past the lease, on the backend's clock
        LockProvider p = closeAfterTest(provider());
        assertThat(listedNames(p, prefix))
                .as("the provider's list(\"%s\")", prefix)
                .containsExactly(prefix + "held");
        assertThat(listed(client(), prefix)).as("locks(\"%s\")", prefix).containsExactly(prefix + "held");
    }

    @Test
    @DisplayName(
            "a prefix matches code point by code point: not ignoring case or accents, not as an equivalent Unicode form")
    void prefixMatchesExactly() throws Exception {
        String p = name() + "/";
        List<String> names = List.of(
                p + "Abc",
                p + "abc",
                p + "ABd",
                p + "\u00e91",
                p + "e\u03012",
                p + "e3",
                p + "\u00c94",
                p + "\u00df5",
                p + "ss6",
                p + "\uff417",
                p + "\ud83d\udd128");
        holdAll(client(), names);
        LockProvider provider = closeAfterTest(provider());
        for (String start : List.of(
                "a",
                "A",
                "AB",
                "\u00e9",
                "e",
                "e\u0301",
                "\u00c9",
                "E",
                "\u00df",
                "ss",
                "SS",
                "\uff41",
                "\ud83d\udd12")) {
            Set<String> expected =
                    names.stream().filter(n -> n.startsWith(p + start)).collect(Collectors.toSet());
            assertThat(listedNames(provider, p + start))
                    .as("the provider's list(\"…%s\")", start)
                    .isEqualTo(expected);
        }
    }

    @Test
    @DisplayName("list pages: 2.5 pages of held locks come back, over more than one page, each page bounded")
    void listingSpansPages() throws Exception {
        String prefix = name() + "/";
        int pageSize = 4;
        Set<String> held = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            held.add(prefix + i);
        }
        DistributedLockFactory holder = client();
        holdAll(holder, held);
        for (int i = 0; i < 3; i++) {
            holder.acquire(prefix + "free" + i, LockOptions.noWait()).release();
        }
        LockProvider p = provider();
        closeAfterTest(p);
        Set<String> seen = new HashSet<>();
        String cursor = null;
        int pages = 0;
        do {
            LockProvider.ListPage page = p.list(prefix, cursor, pageSize);
            pages++;
            // Only a guard against a cursor that never ends: a listing that scans the backend's whole
            // keyspace (Redis' SCAN) takes a page per few keys, of every test that ran before.
            assertThat(pages).as("pages of a 13-lock listing").isLessThan(MAX_PAGES);
            assertThat(page.locks().size())
                    .as("locks on one page of size %d", pageSize)
                    .isLessThanOrEqualTo(4 * pageSize);
            for (LockProvider.HeldLock h : page.locks()) {
                seen.add(h.name());
                assertThat(h.state().holdCounts().values())
                        .as("hold counts of %s", h.name())
                        .containsExactly(1);
            }
            cursor = page.next();
        } while (cursor != null);
        assertThat(seen).as("locks listed").isEqualTo(held);
        assertThat(pages).as("pages").isGreaterThanOrEqualTo(2);
    }

    @Test
    @DisplayName(
            "a lock held throughout a listing is listed, also when locks listed on an earlier page are released between pages")
    void lockHeldThroughoutIsListedWhileEarlierOnesGo() throws Exception {
        String prefix = name() + "/";
        DistributedLockFactory holder = client();
        Map<String, LockHandle> held = new HashMap<>();
        for (int i = 0; i < 12; i++) {
            held.put(prefix + i, holder.acquire(prefix + i, LockOptions.noWait()));
        }
        LockProvider p = closeAfterTest(provider());
        Set<String> seen = new HashSet<>();
        Set<String> released = new HashSet<>();
        String cursor = null;
        int pages = 0;
        do {
            LockProvider.ListPage page = p.list(prefix, cursor, 3);
            assertThat(++pages).as("pages of a 12-lock listing").isLessThan(MAX_PAGES);
            for (LockProvider.HeldLock h : page.locks()) {
                seen.add(h.name());
                // What a page showed goes before the next page is asked for (an operator freeing them).
                LockHandle handle = held.remove(h.name());
                if (handle != null) {
                    handle.release();
                    released.add(h.name());
                }
            }
            cursor = page.next();
        } while (cursor != null);
        assertThat(released).as("locks released during the listing").isNotEmpty();
        assertThat(seen).as("locks listed").containsAll(released);
        assertThat(held.keySet()).as("locks held throughout and never listed").isEmpty();
    }

    @Test
    @DisplayName("the stream is lazy and closing it ends the listing: no page is fetched before use or after close")
    void streamIsLazyAndEndsOnClose() throws Exception {
        String prefix = name() + "/";
        holdAll(client(), List.of(prefix + "a", prefix + "b", prefix + "c"));
        AtomicInteger pages = new AtomicInteger();
        LockProvider counting = new io.lockkit.spi.support.ForwardingLockProvider(provider()) {
            @Override
            public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
                pages.incrementAndGet();
                return super.list(prefix, cursor, pageSize);
            }
        };
        DistributedLockFactory operator = DistributedLockFactory.create(counting);
        closeAfterTest(operator);
        Stream<LockInfo> unused = operator.operations().locks(prefix);
        unused.close();
        assertThat(pages).as("pages fetched by a stream never used").hasValue(0);
        Stream<LockInfo> locks = operator.operations().locks(prefix);
        java.util.Iterator<LockInfo> it = locks.iterator();
        assertThat(it.hasNext()).isTrue();
        assertThat(it.next().name()).startsWith(prefix);
        int fetched = pages.get();
        locks.close();
        assertThat(it.hasNext()).as("a closed listing has more").isFalse();
        assertThat(pages).as("pages fetched after close").hasValue(fetched);
    }

    @Test
    @DisplayName("locks(null) is refused with IllegalArgumentException; a closed factory refuses to list")
    @SuppressWarnings("NullAway") // passes null on purpose
    void listingRefusesBadPrefixAndClosedFactory() throws Exception {
        DistributedLockFactory c = client();
        assertThatThrownBy(() -> c.operations().locks(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix");
        Stream<LockInfo> opened = c.operations().locks(name());
        c.close();
        assertThatThrownBy(() -> c.operations().locks("")).isInstanceOf(LockException.class);
        assertThatThrownBy(() -> opened.count())
                .as("a stream of a factory closed since")
                .isInstanceOf(LockException.class);
    }
}
