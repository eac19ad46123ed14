package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class CountingLockProviderTest {

    private static final WakeUpListener NOBODY = new WakeUpListener() {
        @Override
        public void released(@Nullable String grantee) {}

        @Override
        public void missedNotifications() {}
    };

    private final CountingLockProvider counting = new CountingLockProvider(new LocalLockProvider());

    @Test
    void countsEachCallByKind() {
        Duration lease = Duration.ofSeconds(30);
        assertThat(counting.tryAcquire(new LockRequest("a", "c:1", lease, Duration.ZERO))
                        .isAcquired())
                .isTrue();
        counting.tryAcquire(new LockRequest("b", "c:1", lease, Duration.ZERO));
        counting.renew(List.of(new Renewal("a", "c:1", lease), new Renewal("b", "c:1", lease)));
        counting.renew(List.of(new Renewal("a", "c:1", lease)));
        counting.inspect("a");
        counting.list("", null, 10);
        counting.release("a", "c:1");
        counting.forceRelease("b");
        counting.abandon("b", "c:2", 7);

        assertThat(counting.acquisitions()).isEqualTo(2);
        assertThat(counting.renewCalls()).isEqualTo(2);
        assertThat(counting.renewedHolds()).isEqualTo(3);
        assertThat(counting.renewalsOf("a")).isEqualTo(2);
        assertThat(counting.renewalsOf("b")).isEqualTo(1);
        assertThat(counting.renewalsOf("never")).isZero();
        assertThat(counting.inspections()).isEqualTo(1);
        assertThat(counting.listPages()).isEqualTo(1);
        assertThat(counting.releases()).isEqualTo(1);
        assertThat(counting.forcedReleases()).isEqualTo(1);
        assertThat(counting.abandons()).isEqualTo(1);
    }

    @Test
    void aSubscriptionIsOpenUntilItsFirstClose() {
        Subscription first = counting.subscribe("a", NOBODY);
        Subscription second = counting.subscribe("a", NOBODY);
        assertThat(counting.openSubscriptions()).isEqualTo(2);

        first.close();
        first.close();
        assertThat(counting.openSubscriptions())
                .as("a second close counts nothing")
                .isEqualTo(1);
        second.close();
        assertThat(counting.openSubscriptions()).isZero();
    }
}
