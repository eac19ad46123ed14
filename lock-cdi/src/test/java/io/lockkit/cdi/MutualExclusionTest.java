package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.cdi.internal.LockFactoryHolder;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.inject.se.SeContainer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@Locked across two applications (two CDI containers, one Redis)")
class MutualExclusionTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @BeforeAll
    static void configure(RedisServer redis) {
        Lockkit.useRedis(redis);
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @BeforeEach
    void reset() {
        SharedCounter.reset();
    }

    @Test
    @DisplayName("concurrent calls of the same @Locked method in two applications never overlap")
    void callsFromTwoApplicationsNeverOverlap() throws Exception {
        SeContainer a = Lockkit.start("app-a", SharedCounter.class);
        SeContainer b = Lockkit.start("app-b", SharedCounter.class);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            assertThat(a.select(LockFactoryHolder.class).get().factory())
                    .as("each application has its own Redis client")
                    .isNotSameAs(b.select(LockFactoryHolder.class).get().factory());
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                SharedCounter counter =
                        (t % 2 == 0 ? a : b).select(SharedCounter.class).get();
                calls.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        counter.increment();
                    }
                }));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
            assertThat(SharedCounter.overlaps.entries()).isEqualTo(200);
            assertThat(SharedCounter.overlaps.most())
                    .as("callers inside at once")
                    .isEqualTo(1);
            assertThat(SharedCounter.value).as("no update lost").isEqualTo(200);
        } finally {
            pool.shutdownNow();
            a.close();
            b.close();
        }
    }

    @Test
    @DisplayName("while one application holds the lock, the other's try-once call is turned away")
    void secondApplicationIsTurnedAwayWhileTheFirstHolds() throws Exception {
        SeContainer a = Lockkit.start("app-a", SharedCounter.class);
        SeContainer b = Lockkit.start("app-b", SharedCounter.class);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            Future<?> holder = pool.submit(() -> {
                a.select(SharedCounter.class).get().holdUntil(held, release);
                return null;
            });
            assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
            SharedCounter other = b.select(SharedCounter.class).get();
            assertThatThrownBy(other::incrementIfFree)
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("shared-counter");
            release.countDown();
            holder.get(30, TimeUnit.SECONDS);
            other.incrementIfFree();
            assertThat(SharedCounter.value).isEqualTo(1);
        } finally {
            release.countDown();
            pool.shutdownNow();
            a.close();
            b.close();
        }
    }

    @Test
    @DisplayName("the injected factory and @Locked share one lock namespace")
    void injectedFactorySeesLocksTakenByLocked() throws Exception {
        SeContainer a = Lockkit.start("app-a", SharedCounter.class);
        SeContainer b = Lockkit.start("app-b", SharedCounter.class);
        try {
            DistributedLockFactory bLocks =
                    b.select(DistributedLockFactory.class).get();
            try (var hold = bLocks.acquire("shared-counter")) {
                assertThatThrownBy(() -> a.select(SharedCounter.class).get().incrementIfFree())
                        .isInstanceOf(LockNotAcquiredException.class);
            }
            a.select(SharedCounter.class).get().incrementIfFree();
            assertThat(SharedCounter.value).isEqualTo(1);
        } finally {
            a.close();
            b.close();
        }
    }
}
