package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedSemaphore;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@DistributedBulkhead: at most capacity permits held by the calls, cluster-wide")
class BulkheadTest {

    private static final LockOptions TRY_ONCE = LockOptions.builder().noWait().build();

    @RegisterExtension
    final Lockkit.PerTest cdi = Lockkit.perTest(PartnerCalls.class, PartnerQuotes.class, PartnerApi.class);

    @Inject
    PartnerCalls partner;

    @Inject
    PartnerQuotes quotes;

    @Inject
    DistributedLockFactory locks;

    @BeforeAll
    static void configure() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local"));
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("capacity 2 admits two calls, refuses the third (THROW) and admits one again after a completion")
    void twoAdmittedThirdRefused() throws Exception {
        CountDownLatch granted = new CountDownLatch(2);
        CompletableFuture<String> work1 = new CompletableFuture<>();
        CompletionStage<String> first = partner.call(granted, work1);
        CompletableFuture<String> work2 = new CompletableFuture<>();
        CompletionStage<String> second = partner.call(granted, work2);
        assertThat(granted.await(20, TimeUnit.SECONDS)).as("two calls inside").isTrue();
        assertThat(semaphore().availablePermits()).isZero();
        assertThatThrownBy(() -> partner.call(new CountDownLatch(1), CompletableFuture.completedFuture("x"))
                        .toCompletableFuture()
                        .get(20, TimeUnit.SECONDS))
                .hasCauseInstanceOf(LockNotAcquiredException.class);
        assertThat(partner.callOrSkip(CompletableFuture.completedFuture(Optional.of("x")))
                        .toCompletableFuture()
                        .get(20, TimeUnit.SECONDS))
                .as("SKIP when full")
                .isEmpty();
        work1.complete("one");
        assertThat(first.toCompletableFuture().get(20, TimeUnit.SECONDS)).isEqualTo("one");
        CompletableFuture<String> third = partner.call(
                        new CountDownLatch(1), CompletableFuture.completedFuture("three"))
                .toCompletableFuture();
        assertThat(third.get(20, TimeUnit.SECONDS)).isEqualTo("three");
        work2.complete("two");
        assertThat(second.toCompletableFuture().get(20, TimeUnit.SECONDS)).isEqualTo("two");
        assertThat(semaphore().availablePermits()).isEqualTo(2);
    }

    @Test
    @DisplayName("a waiting call is admitted once a permit comes back")
    void waitingCallIsAdmittedOnRelease() throws Exception {
        try (LockHandle both = semaphore().acquire(2, TRY_ONCE)) {
            assertThat(both.isValid()).isTrue();
            CountDownLatch granted = new CountDownLatch(1);
            CompletionStage<String> waiting = partner.callWaiting(granted, CompletableFuture.completedFuture("late"));
            assertThat(granted.getCount()).as("not admitted while full").isEqualTo(1);
            both.release();
            assertThat(waiting.toCompletableFuture().get(20, TimeUnit.SECONDS)).isEqualTo("late");
        }
    }

    @Test
    @DisplayName("a synchronous call refuses when full or skips (SKIP); nested calls of the bulkhead join its permits")
    void synchronousCalls() throws Exception {
        assertThat(partner.quote(2)).as("two permits of two, nested twice").isEqualTo("quoted");
        assertThat(semaphore().availablePermits()).isEqualTo(2);
        try (LockHandle one = semaphore().acquire(1, TRY_ONCE)) {
            assertThat(one.isValid()).isTrue();
            assertThatThrownBy(() -> partner.quote(0)).isInstanceOf(LockNotAcquiredException.class);
            assertThat(partner.quoteOrSkip()).contains("quoted");
            try (LockHandle two = semaphore().acquire(1, TRY_ONCE)) {
                assertThat(two.isValid()).isTrue();
                assertThat(partner.quoteOrSkip()).isEmpty();
            }
        }
        assertThat(semaphore().availablePermits()).isEqualTo(2);
    }

    @Test
    @DisplayName("the guide's partner quotes run under the partner-api bulkhead, and skip when it is full")
    void guidePartnerQuotes() throws Exception {
        assertThat(quotes.quote("tea")).isEqualTo(3);
        DistributedSemaphore partnerApi = locks.getSemaphore("partner-api", 3);
        try (LockHandle all = partnerApi.acquire(3, TRY_ONCE)) {
            assertThat(all.isValid()).isTrue();
            assertThat(quotes.quoteIfFree("tea").toCompletableFuture().get(20, TimeUnit.SECONDS))
                    .isEmpty();
        }
        assertThat(quotes.quoteIfFree("tea").toCompletableFuture().get(20, TimeUnit.SECONDS))
                .contains(3);
        assertThat(partnerApi.availablePermits()).isEqualTo(3);
    }

    private DistributedSemaphore semaphore() {
        return locks.getSemaphore("partner", 2);
    }
}
