package io.lockkit.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockHandle;
import java.time.Duration;
import java.time.Instant;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("LockkitLockProvider's arguments (in-JVM provider)")
class LockkitLockProviderArgumentsTest {

    private final DistributedLockFactory locks = DistributedLockFactory.create(new LocalLockProvider());
    private final LockkitLockProvider provider = new LockkitLockProvider(locks, "jobs:");

    @AfterEach
    void close() {
        locks.close();
    }

    @Test
    @DisplayName(
            "null factories, prefixes and configurations, and a lockAtMostFor below a millisecond, are IllegalArgumentExceptions naming them")
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> new LockkitLockProvider(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("locks");
        assertThatThrownBy(() -> new LockkitLockProvider(locks, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix");
        assertThatThrownBy(() -> provider.lock(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockConfiguration");
        assertThatThrownBy(
                        () -> provider.lock(new LockConfiguration(Instant.now(), "job", Duration.ZERO, Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor");
        assertThatThrownBy(() -> new LockkitLockProvider(locks)
                        .lock(new LockConfiguration(Instant.now(), "a\nb", Duration.ofSeconds(1), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("extend() with lockAtLeastFor over lockAtMostFor is refused and leaves the lock usable")
    void badExtensionLeavesTheLockUsable() {
        SimpleLock lock = provider.lock(
                        new LockConfiguration(Instant.now(), "job", Duration.ofSeconds(30), Duration.ZERO))
                .orElseThrow();
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtLeastFor");
        assertThat(CurrentShedLock.handle().orElseThrow().name()).isEqualTo("jobs:job");
        lock.unlock();
        assertThat(CurrentShedLock.handle()).isEmpty();
    }

    @Test
    @DisplayName(
            "a lock abandoned on a thread stops being its current one once its hold has ended and the thread takes another")
    void abandonedLockLeavesTheThread() {
        provider.lock(new LockConfiguration(Instant.now(), "abandoned", Duration.ofMillis(50), Duration.ZERO))
                .orElseThrow();
        LockHandle abandoned = CurrentShedLock.handle().orElseThrow();
        await().atMost(Duration.ofSeconds(20)).until(() -> !abandoned.isValid());
        SimpleLock next = provider.lock(
                        new LockConfiguration(Instant.now(), "next", Duration.ofSeconds(30), Duration.ZERO))
                .orElseThrow();
        assertThat(CurrentShedLock.handle().orElseThrow().name()).isEqualTo("jobs:next");
        next.unlock();
        assertThat(CurrentShedLock.handle()).isEmpty();
    }
}
