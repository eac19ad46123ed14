package io.lockkit.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import io.lockkit.LockLostException;
import io.lockkit.LockObserver;
import io.lockkit.LockObserver.LossCause;
import io.lockkit.spi.LockProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The snippets of docs/operating.md, compiled and run on the in-JVM provider; each block between
 * {@code // guide:<name>-begin} and {@code -end} is shown on the page.
 */
@DisplayName("docs/operating.md: observers and listings as the guide shows them")
class OperatingGuideTest {

    private final LocalLockProvider backend = new LocalLockProvider();

    @Test
    @DisplayName("an observer counts acquisitions and losses")
    void observerCounts() throws Exception {
        LockProvider provider = backend.newClient();
        // guide:observer-begin
        LongAdder acquisitions = new LongAdder();
        LongAdder losses = new LongAdder();
        DistributedLockFactory locks = DistributedLockFactory.builder(provider)
                .observer(new LockObserver() {
                    @Override
                    public void acquired(String name, long waitedNanos, long fencingToken, boolean reentrant) {
                        acquisitions.increment();
                    }

                    @Override
                    public void lost(String name, long fencingToken, LossCause cause, LockLostException loss) {
                        losses.increment();
                    }
                })
                .build();
        // guide:observer-end
        try (locks) {
            LockHandle hold = locks.acquire("orders:42");
            assertThat(acquisitions.sum()).isEqualTo(1);
            assertThat(locks.forceRelease("orders:42")).isTrue();
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> losses.sum() == 1);
            assertThat(hold.isValid()).isFalse();
        }
    }

    @Test
    @DisplayName("a listing streams the held locks under a prefix, and is closed")
    void listingByPrefix() throws Exception {
        List<String> printed = new ArrayList<>();
        try (DistributedLockFactory locks = DistributedLockFactory.create(backend.newClient());
                LockHandle a = locks.acquire("orders:1");
                LockHandle b = locks.acquire("orders:2");
                LockHandle other = locks.acquire("reports:daily")) {
            assertThat(List.of(a, b, other)).allMatch(LockHandle::isValid);
            // guide:listing-begin
            try (Stream<LockInfo> held = locks.locks("orders:")) {
                held.forEach(l -> printed.add(l.name() + " held by " + l.owner() + ", token " + l.fencingToken()));
            }
            // guide:listing-end
        }
        assertThat(printed).hasSize(2).allMatch(line -> line.startsWith("orders:"));
    }
}
