package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.ReleaseRequest;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The round trips of {@link DistributedLockFactory#acquireAll} on a {@link ProviderLockFactory}:
 * every name attempted in one {@link LockProvider#tryAcquireAll}, the members released in one
 * {@link LockProvider#releaseAll}, and under contention the ordered waits of old from the first
 * busy name on. The provider records each call; the in-JVM backend answers them.
 */
class BatchedMultiLockTest {

    private static final List<String> NAMES = List.of("stock:a", "stock:b", "stock:c");

    private final LocalLockProvider backend = new LocalLockProvider();
    private final Recording recording = new Recording(backend);
    private final DistributedLockFactory locks = DistributedLockFactory.create(recording);
    private final DistributedLockFactory other = DistributedLockFactory.create(backend.newClient());

    /** Records the provider calls, single and batched apart (a batch is not counted as singles). */
    static final class Recording extends ForwardingLockProvider {
        final List<String> attempts = new CopyOnWriteArrayList<>();
        final List<List<LockRequest>> batchAttempts = new CopyOnWriteArrayList<>();
        final List<String> releases = new CopyOnWriteArrayList<>();
        final List<List<ReleaseRequest>> batchReleases = new CopyOnWriteArrayList<>();

        Recording(LockProvider delegate) {
            super(delegate);
        }

        @Override
        public Acquisition tryAcquire(LockRequest request) {
            attempts.add(request.name());
            return super.tryAcquire(request);
        }

        @Override
        public List<Acquisition> tryAcquireAll(List<LockRequest> requests) {
            batchAttempts.add(List.copyOf(requests));
            return delegate().tryAcquireAll(requests);
        }

        @Override
        public Release release(String name, String owner) {
            releases.add(name);
            return super.release(name, owner);
        }

        @Override
        public List<Release> releaseAll(List<ReleaseRequest> holds) {
            batchReleases.add(List.copyOf(holds));
            return delegate().releaseAll(holds);
        }
    }

    @AfterEach
    void close() {
        locks.close();
        other.close();
    }

    @Test
    @DisplayName("An uncontended multi-lock of three names is one batch attempt, and its release one batch release")
    void uncontendedAcquireAndReleaseAreOneBatchEach() throws Exception {
        MultiLockHandle all = locks.acquireAll(
                List.of("stock:c", "stock:a", "stock:b"), LockOptions.waitAtMost(Duration.ofSeconds(5)));

        assertThat(recording.batchAttempts).hasSize(1);
        List<LockRequest> batch = recording.batchAttempts.get(0);
        assertThat(batch).extracting(LockRequest::name).containsExactlyElementsOf(NAMES);
        assertThat(batch).allSatisfy(r -> {
            assertThat(r.waiting()).as("a batch attempt does not wait").isFalse();
            assertThat(r.waitId()).isZero();
        });
        assertThat(batch).extracting(LockRequest::owner).doesNotHaveDuplicates();
        assertThat(recording.attempts).as("no single attempt").isEmpty();
        assertHeldElsewhere(NAMES, true);
        assertThat(all.members()).allSatisfy(m -> assertThat(m.fencingToken()).isPositive());

        all.release();

        assertThat(recording.batchReleases).hasSize(1);
        assertThat(recording.batchReleases.get(0))
                .extracting(ReleaseRequest::name)
                .as("released in reverse order")
                .containsExactly("stock:c", "stock:b", "stock:a");
        assertThat(recording.releases).as("no single release").isEmpty();
        assertThat(all.members()).allSatisfy(m -> assertThat(m.holdCount()).isZero());
        assertHeldElsewhere(NAMES, false);
        all.close(); // idempotent: sends nothing more
        assertThat(recording.batchReleases).hasSize(1);
        assertThat(recording.releases).isEmpty();
    }

    @Test
    @DisplayName("A busy middle name keeps the first, gives back the third and waits for the middle, in order")
    void aBusyMiddleMemberKeepsThePrefixAndWaitsInOrder() throws Exception {
        LockHandle middle = other.acquire("stock:b");
        CompletableFuture<MultiLockHandle> all = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                all.complete(locks.acquireAll(NAMES, LockOptions.waitAtMost(Duration.ofSeconds(30))));
            } catch (Throwable e) {
                all.completeExceptionally(e);
            }
        });
        waiter.setDaemon(true);
        waiter.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> recording.attempts.contains("stock:b"));
        assertThat(recording.batchAttempts).hasSize(1);
        assertThat(recording.releases)
                .as("the third, won after the busy one, is given back")
                .containsExactly("stock:c");
        assertThat(other.tryAcquire("stock:a"))
                .as("the first stays held while the middle is awaited")
                .isEmpty();
        LockHandle third = other.tryAcquire("stock:c").orElseThrow(() -> new AssertionError("stock:c was kept"));
        third.release();
        assertThat(all).isNotDone();

        middle.release();
        MultiLockHandle handle = all.get();

        assertThat(handle.names()).containsExactlyElementsOf(NAMES);
        assertThat(recording.attempts)
                .as("no single attempt at the kept first name")
                .doesNotContain("stock:a");
        List<String> singles = new ArrayList<>(recording.attempts);
        assertThat(singles.indexOf("stock:c"))
                .as("the third is taken again after the middle: %s", singles)
                .isGreaterThan(singles.lastIndexOf("stock:b"));
        assertHeldElsewhere(NAMES, true);
        handle.close();
        assertHeldElsewhere(NAMES, false);
    }

    @Test
    @DisplayName("A batch release lowers a reentered member by one count, and close frees every count")
    void aReenteredMemberKeepsOneCountAfterReleaseAndCloseFreesIt() throws Exception {
        MultiLockHandle all = locks.acquireAll(NAMES, LockOptions.noWait());
        LockHandle first = all.members().get(0);
        first.acquireAgain();

        all.release();

        assertThat(recording.batchReleases).hasSize(1);
        assertThat(first.holdCount()).isEqualTo(1);
        assertHeldElsewhere(List.of("stock:a"), true);
        assertHeldElsewhere(List.of("stock:b", "stock:c"), false);
        first.release();
        assertHeldElsewhere(List.of("stock:a"), false);

        MultiLockHandle again = locks.acquireAll(NAMES, LockOptions.noWait());
        again.members().get(1).acquireAgain();
        again.close();
        assertHeldElsewhere(NAMES, false);
    }

    @Test
    @DisplayName("A member gone from the backend fails the batch release with its loss, and the others are freed")
    void aMemberLostOnTheBackendIsReportedByTheBatchRelease() throws Exception {
        MultiLockHandle all = locks.acquireAll(NAMES, LockOptions.noWait());
        assertThat(other.operations().forceRelease("stock:b")).isTrue();

        assertThatThrownBy(all::release).isInstanceOf(LockLostException.class).hasMessageContaining("stock:b");

        assertThat(recording.batchReleases).hasSize(1);
        assertThat(all.lost()).isCompleted();
        assertHeldElsewhere(List.of("stock:a", "stock:c"), false);
    }

    /** Whether another client finds each of {@code names} held ({@code held}) or free (then it takes and frees it). */
    private void assertHeldElsewhere(List<String> names, boolean held) {
        for (String name : names) {
            var taken = other.tryAcquire(name);
            assertThat(taken).as("%s is %s", name, held ? "held" : "free").matches(t -> t.isPresent() != held);
            taken.ifPresent(LockHandle::release);
        }
    }
}
