package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.spi.LockProvider.HeldLock;
import io.lockkit.spi.LockProvider.ListPage;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.LockState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link LockInfo}'s validation, the core's translation of a provider's state into it, and the
 * in-JVM provider's listing on a fake clock (pages by name, lapsed entries skipped).
 */
class LockInfoTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    @Test
    @DisplayName("LockInfo refuses each bad component with IllegalArgumentException naming it")
    @SuppressWarnings("NullAway") // passes null on purpose
    void badComponentsAreRefused() {
        Duration d = Duration.ofSeconds(1);
        assertThatThrownBy(() -> new LockInfo(null, "c:t1", "c", 1, 1, d, 0)).hasMessageContaining("name");
        assertThatThrownBy(() -> new LockInfo("n", null, "c", 1, 1, d, 0)).hasMessageContaining("owner");
        assertThatThrownBy(() -> new LockInfo("n", "c:t1", null, 1, 1, d, 0)).hasMessageContaining("clientId");
        assertThatThrownBy(() -> new LockInfo("n", "c:t1", "d", 1, 1, d, 0)).hasMessageContaining("clientId");
        assertThatThrownBy(() -> new LockInfo("n", "c:t1", "c", -1, 1, d, 0)).hasMessageContaining("holdCount");
        assertThatThrownBy(() -> new LockInfo("n", "c:t1", "c", 1, -1, d, 0)).hasMessageContaining("fencingToken");
        assertThatThrownBy(() -> new LockInfo("n", "c:t1", "c", 1, 1, null, 0)).hasMessageContaining("leaseLeft");
        assertThatThrownBy(() -> new LockInfo("n", "c:t1", "c", 1, 1, d.negated(), 0))
                .hasMessageContaining("leaseLeft");
        assertThatThrownBy(() -> new LockInfo("n", "c:t1", "c", 1, 1, d, -2)).hasMessageContaining("waiters");
        assertThat(new LockInfo("n", "c:h2", "c", 0, 0, Duration.ZERO, -1).waitersKnown())
                .as("a hand-over not claimed, no queue")
                .isFalse();
        assertThat(LockInfo.clientIdOf("abc:t1:x")).isEqualTo("abc");
        assertThat(LockInfo.clientIdOf("solo")).isEqualTo("solo");
    }

    @Test
    @DisplayName(
            "a provider's state becomes a LockInfo: the holder's client id split off, a lapsed lease shown as zero, a holderless state as free")
    void stateBecomesInfo() {
        LockInfo info = LockListing.info("n", new LockState(Map.of("k1:h7", 2), Duration.ofMillis(-5), 42, 3))
                .orElseThrow();
        assertThat(info).isEqualTo(new LockInfo("n", "k1:h7", "k1", 2, 42, Duration.ZERO, 3));
        assertThat(LockListing.info("n", new LockState(Map.of(), LEASE))).isEmpty();
        assertThat(LockListing.info("n", new LockState(Map.of("k:t1", 1), LEASE)))
                .map(LockInfo::waiters)
                .contains(-1);
    }

    @Test
    @DisplayName(
            "without inspection, listing and force release declared, the factory refuses each loudly, and no SPI call is made")
    void missingCapabilitiesAreRefused() throws Exception {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        LocalLockProvider backend = new LocalLockProvider();
        io.lockkit.spi.LockProvider bare = new io.lockkit.spi.support.ForwardingLockProvider(backend) {
            @Override
            public java.util.Set<Capability> capabilities() {
                return java.util.EnumSet.of(Capability.FENCING_TOKENS, Capability.EXPLICIT_LEASE);
            }

            @Override
            public java.util.Optional<LockState> inspect(String name) {
                calls.incrementAndGet();
                return super.inspect(name);
            }

            @Override
            public ListPage list(String prefix, @org.jspecify.annotations.Nullable String cursor, int pageSize) {
                calls.incrementAndGet();
                return super.list(prefix, cursor, pageSize);
            }
        };
        try (DistributedLockFactory f = DistributedLockFactory.create(bare)) {
            f.acquire("held", LockOptions.noWait());
            assertThatThrownBy(() -> f.operations().inspect("held"))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("inspecting");
            assertThatThrownBy(() -> f.operations().locks(""))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("listing");
            assertThatThrownBy(() -> f.operations().forceRelease("held"))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("force");
            assertThat(calls).hasValue(0);
        }
    }

    @Test
    @DisplayName("the in-JVM provider lists by name, page by page, and skips lapsed holds")
    void localProviderPagesByName() {
        FakeTicker ticker = new FakeTicker();
        LocalLockProvider p = new LocalLockProvider(ticker);
        for (String n : List.of("a/1", "a/2", "a/3", "a/4", "a/5", "b/1", "a")) {
            p.tryAcquire(new LockRequest(n, "c:" + n, LEASE, Duration.ZERO));
        }
        p.tryAcquire(new LockRequest("a/0-short", "c:s", Duration.ofSeconds(1), Duration.ZERO));
        ticker.advance(Duration.ofSeconds(2));
        List<List<String>> pages = new ArrayList<>();
        String cursor = null;
        do {
            ListPage page = p.list("a/", cursor, 2);
            pages.add(page.locks().stream().map(HeldLock::name).toList());
            cursor = page.next();
        } while (cursor != null);
        assertThat(pages).containsExactly(List.of("a/1"), List.of("a/2", "a/3"), List.of("a/4", "a/5"));
        HeldLock first = p.list("a/", null, 10).locks().get(0);
        assertThat(first.state().fencingToken()).isPositive();
        assertThat(first.state().remainingLease()).isEqualTo(LEASE.minusSeconds(2));
        assertThatThrownBy(() -> p.list("a/", null, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pageSize");
    }
}
