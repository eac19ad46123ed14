package io.lockkit.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockHandle;
import io.lockkit.LockInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The listing snippet of docs/operating.md (its observer and metrics snippets are LockObserverTest's
 * and LockMetricsTest's), compiled and run on the in-JVM provider; each block between
 * {@code // guide:<name>-begin} and {@code -end} is shown on the page.
 */
@DisplayName("docs/operating.md: a listing as the guide shows it")
class OperatingGuideTest {

    private final LocalLockProvider backend = new LocalLockProvider();

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
            try (Stream<LockInfo> held = locks.operations().locks("orders:")) {
                held.forEach(l -> printed.add(l.name() + " held by " + l.owner() + ", token " + l.fencingToken()));
            }
            // guide:listing-end
        }
        assertThat(printed).hasSize(2).allMatch(line -> line.startsWith("orders:"));
    }
}
