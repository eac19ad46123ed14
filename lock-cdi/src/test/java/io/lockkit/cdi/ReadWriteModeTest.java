package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockNotAcquiredException;
import io.lockkit.LockOptions;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("@Locked(mode = READ/WRITE): the read/write lock of a name")
class ReadWriteModeTest {

    private static final LockOptions TRY_ONCE = LockOptions.builder().noWait().build();

    @RegisterExtension
    final Lockkit.PerTest cdi = Lockkit.perTest(Catalog.class, Catalog.Inner.class, PriceList.class);

    @Inject
    Catalog catalog;

    @Inject
    PriceList priceList;

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
    @DisplayName("two readers run at once on two threads while a writer and a plain @Locked call are kept out")
    void readersShareWhileWritersAreExcluded() throws Exception {
        CountDownLatch entered = new CountDownLatch(2);
        CountDownLatch leave = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<Boolean> first = threads.submit(() -> catalog.read(entered, leave));
            Future<Boolean> second = threads.submit(() -> catalog.read(entered, leave));
            assertThat(entered.await(20, TimeUnit.SECONDS))
                    .as("both readers inside at once")
                    .isTrue();
            assertThatThrownBy(catalog::writeOnce).isInstanceOf(LockNotAcquiredException.class);
            assertThatThrownBy(catalog::exclusiveOnce).isInstanceOf(LockNotAcquiredException.class);
            assertThat(catalog.readOnce()).as("a third reader").isEqualTo("read");
            leave.countDown();
            assertThat(first.get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(second.get(20, TimeUnit.SECONDS)).isTrue();
        } finally {
            leave.countDown();
            threads.shutdownNow();
        }
        assertThat(catalog.writeOnce()).as("free for a writer afterwards").isEqualTo("written");
    }

    @Test
    @DisplayName("a reader is kept out while a plain @Locked hold of the name, the same hold as WRITE, is held")
    void exclusiveHoldKeepsReadersOut() throws Exception {
        try (LockHandle exclusive = locks.acquire("catalog", TRY_ONCE)) {
            assertThat(exclusive.isValid()).isTrue();
            assertThatThrownBy(catalog::readOnce).isInstanceOf(LockNotAcquiredException.class);
            assertThatThrownBy(catalog::writeOnce).isInstanceOf(LockNotAcquiredException.class);
        }
        assertThat(catalog.readOnce()).isEqualTo("read");
    }

    @Test
    @DisplayName("a WRITE call inside a READ call of the same name fails at once, and leaves the name free")
    void upgradeIsRefusedAtOnce() throws Exception {
        assertThatThrownBy(catalog::readThenWrite)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("catalog")
                .hasMessageContaining("upgrade");
        assertFree();
    }

    @Test
    @DisplayName("a READ call inside a WRITE call of the same name joins the write hold")
    void downgradeIsJoined() throws Exception {
        assertThat(catalog.writeThenRead()).isEqualTo("read");
        assertFree();
    }

    @Test
    @DisplayName("asynchronous readers share the name until their stages complete; a writer's stage fails meanwhile")
    void asynchronousReadersHoldUntilCompletion() throws Exception {
        CompletableFuture<String> work1 = new CompletableFuture<>();
        CompletableFuture<String> work2 = new CompletableFuture<>();
        CountDownLatch granted = new CountDownLatch(2);
        CompletionStage<String> reader1 = catalog.readAsync(granted, work1);
        CompletionStage<String> reader2 = catalog.readAsync(granted, work2);
        assertThat(granted.await(20, TimeUnit.SECONDS))
                .as("both readers granted")
                .isTrue();
        assertThat(catalog.readOnce()).isEqualTo("read");
        assertThatThrownBy(() -> catalog.writeAsync().toCompletableFuture().get(20, TimeUnit.SECONDS))
                .hasCauseInstanceOf(LockNotAcquiredException.class);
        work1.complete("one");
        work2.complete("two");
        assertThat(reader1.toCompletableFuture().get(20, TimeUnit.SECONDS)).isEqualTo("one");
        assertThat(reader2.toCompletableFuture().get(20, TimeUnit.SECONDS)).isEqualTo("two");
        assertThat(catalog.writeAsync().toCompletableFuture().get(20, TimeUnit.SECONDS))
                .isEqualTo("written");
    }

    @Test
    @DisplayName("the guide's price list reloads under WRITE and is read under READ")
    void guidePriceList() {
        priceList.reload(Map.of("tea", 4));
        assertThat(priceList.price("tea")).contains(4);
        assertThat(priceList.price("coffee")).isEmpty();
    }

    private void assertFree() throws InterruptedException {
        try (LockHandle probe = locks.acquire("catalog", LockOptions.waitAtMost(Duration.ofSeconds(5)))) {
            assertThat(probe.isValid()).as("catalog is free").isTrue();
        }
    }
}
