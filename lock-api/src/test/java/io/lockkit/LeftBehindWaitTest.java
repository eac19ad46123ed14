package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A wait that ended while the backend could not be reached leaves its queue entry behind (its
 * abandon failed). Such an entry would be handed the lock and keep it from everyone for the
 * backend's claim timeout, so the abandon is sent again once the backend answers, and a hand-over
 * that reaches this client for one of its handle owners that no longer waits is declined at once.
 * Never for a thread's owner: it is the same in the thread's next lock call, which a late abandon
 * could meet.
 */
class LeftBehindWaitTest {

    private final LocalLockProvider backend = new LocalLockProvider();
    private final AtomicBoolean down = new AtomicBoolean();
    private final List<String> abandons = new CopyOnWriteArrayList<>();
    private final AtomicReference<LockProvider.WakeUpListener> listener = new AtomicReference<>();

    /** Abandons fail while {@link #down}; records every abandon that reached the backend and the room's listener. */
    private final class Flaky extends ForwardingLockProvider {
        Flaky() {
            super(backend);
        }

        @Override
        public void abandon(String name, String owner, long waitId) {
            if (down.get()) {
                throw new BackendUnavailableException(name, "the backend restarts", null);
            }
            abandons.add(name + " " + owner + " " + waitId);
            super.abandon(name, owner, waitId);
        }

        @Override
        public Subscription subscribe(String name, WakeUpListener l) {
            listener.set(l);
            return super.subscribe(name, l);
        }
    }

    private final DistributedLockFactory locks =
            DistributedLockFactory.builder(new Flaky()).build();
    private final DistributedLockFactory other =
            DistributedLockFactory.builder(backend.newClient()).build();

    @AfterEach
    void close() {
        locks.close();
        other.close();
    }

    @Test
    void anAbandonThatFailedIsSentAgainOnceTheBackendAnswers() throws Exception {
        LockHandle held = other.acquire("left", LockOptions.noWait());
        down.set(true);
        Optional<LockHandle> timedOut = locks.tryAcquire("left", LockOptions.waitAtMost(Duration.ofMillis(100)));
        assertThat(timedOut).isEmpty();
        assertThat(abandons).as("the abandon failed").isEmpty();
        assertThat(((ProviderLockFactory) locks).pendingAbandons()).isEqualTo(1);

        down.set(false);
        assertThat(locks.tryAcquire("another")).isPresent().get().satisfies(LockHandle::release);
        await().atMost(Duration.ofSeconds(5)).until(() -> abandons.stream().anyMatch(a -> a.startsWith("left ")));
        assertThat(((ProviderLockFactory) locks).pendingAbandons()).isZero();
        held.release();
    }

    @Test
    void aFailedAbandonOfAThreadsWaitIsNotSentAgain() throws Exception {
        // The thread's owner id is the same for its next lock call: an abandon of the ended wait
        // sent later could meet that next hold and free it while the thread holds it.
        LockHandle held = other.acquire("thread", LockOptions.noWait());
        down.set(true);
        assertThat(locks.getLock("thread").tryLock(100, java.util.concurrent.TimeUnit.MILLISECONDS))
                .isFalse();
        assertThat(abandons).as("the abandon failed").isEmpty();
        assertThat(((ProviderLockFactory) locks).pendingAbandons()).isZero();

        down.set(false);
        assertThat(locks.tryAcquire("another")).isPresent().get().satisfies(LockHandle::release);
        held.release();
        assertThat(abandons)
                .as("no abandon of the thread's ended wait is sent later")
                .noneMatch(a -> a.startsWith("thread "));
    }

    @Test
    void aHandOverToAnOwnerOfThisClientThatNoLongerWaitsIsDeclined() throws Exception {
        LockHandle held = other.acquire("gone", LockOptions.noWait());
        CompletableFuture<LockHandle> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return locks.acquire("gone", LockOptions.waitAtMost(Duration.ofSeconds(20)));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> listener.get() != null);
        String threadOwner = ((ProviderLockFactory) locks).threadOwner();
        String prefix = threadOwner.substring(0, threadOwner.indexOf(':') + 1);

        listener.get().released("someone-else:h1");
        listener.get().released(prefix + "t999999");
        listener.get().released(prefix + "h999999");
        await().atMost(Duration.ofSeconds(5)).until(() -> abandons.contains("gone " + prefix + "h999999 0"));
        assertThat(abandons)
                .as("a hand-over to another client's owner is not ours to decline")
                .noneMatch(a -> a.contains("someone-else"))
                .as("nor one to a thread's owner, which the thread's next lock call uses again")
                .noneMatch(a -> a.contains(prefix + "t999999"));
        held.release();
        waiting.get().release();
    }
}
