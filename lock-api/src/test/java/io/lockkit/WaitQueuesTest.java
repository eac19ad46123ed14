package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * This client's rooms of waiters, driven directly on the test thread (a waiter is only a flag and
 * a thread to unpark): which waiter a wake-up reaches, passing an unused wake-up on, direct grants
 * to the right wait, one subscription per name, the linger of an idle room on a scheduler the test
 * drives, and close.
 */
class WaitQueuesTest {

    private static final long LINGER = TimeUnit.SECONDS.toNanos(2);

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);
    private final LocalLockProvider backend = new LocalLockProvider(ticker);
    private final Subscribing provider = new Subscribing(backend);
    private final WaitQueues waits = new WaitQueues(provider, scheduler, LINGER);

    @AfterEach
    void close() {
        waits.close();
    }

    /** Counts subscriptions per name and keeps each name's listener, so the test can notify it. */
    static final class Subscribing extends ForwardingLockProvider {
        final Map<String, WakeUpListener> listeners = new ConcurrentHashMap<>();
        final AtomicInteger subscribes = new AtomicInteger();
        final AtomicInteger unsubscribes = new AtomicInteger();
        final List<String> closeFailures = new CopyOnWriteArrayList<>();
        volatile boolean failClose;

        Subscribing(LocalLockProvider delegate) {
            super(delegate);
        }

        @Override
        public Subscription subscribe(String name, WakeUpListener listener) {
            subscribes.incrementAndGet();
            listeners.put(name, listener);
            Subscription s = super.subscribe(name, listener);
            return () -> {
                unsubscribes.incrementAndGet();
                listeners.remove(name, listener);
                s.close();
                if (failClose) {
                    closeFailures.add(name);
                    throw new BackendUnavailableException(name, "unsubscribe refused by the test", null);
                }
            };
        }
    }

    @Test
    void aReleaseWakesOneWaiterAtATimeInArrivalOrder() {
        WaitQueues.Waiter first = waits.join("q:one", "o1", 1, false, null);
        WaitQueues.Waiter second = waits.join("q:one", "o2", 2, false, null);
        assertThat(waits.subscribe(first)).isTrue();
        WakeUpListener room = provider.listeners.get("q:one");

        room.released(null);
        assertThat(second.consumeSignal()).isFalse();
        room.released(null); // the first has not looked yet: the next one is woken
        assertThat(first.consumeSignal()).isTrue();
        assertThat(second.consumeSignal()).isTrue();
        assertThat(first.consumeSignal()).as("the signal is consumed").isFalse();
    }

    @Test
    void aHandOverWakesOnlyTheGranteesWaiterAndOneToAnotherClientWakesNobody() {
        WaitQueues.Waiter first = waits.join("q:hand", "o1", 1, false, null);
        WaitQueues.Waiter second = waits.join("q:hand", "o2", 2, false, null);
        waits.subscribe(first);
        WakeUpListener room = provider.listeners.get("q:hand");

        room.released("o2");
        assertThat(first.consumeSignal()).isFalse();
        assertThat(second.consumeSignal()).isTrue();
        room.released("elsewhere");
        assertThat(first.consumeSignal()).isFalse();
        assertThat(second.consumeSignal()).isFalse();

        waits.handedTo("q:hand", "o1");
        assertThat(first.consumeSignal()).isTrue();
        assertThat(second.consumeSignal()).isFalse();
        waits.handedTo("q:nobody", "o1"); // no room: nothing to do
    }

    @Test
    void missedNotificationsAndARecheckWakeEveryWaiterOfTheName() {
        WaitQueues.Waiter first = waits.join("q:missed", "o1", 1, false, null);
        WaitQueues.Waiter second = waits.join("q:missed", "o2", 2, false, null);
        WaitQueues.Waiter elsewhere = waits.join("q:other", "o3", 3, false, null);
        waits.subscribe(first);
        provider.listeners.get("q:missed").missedNotifications();
        assertThat(first.consumeSignal()).isTrue();
        assertThat(second.consumeSignal()).isTrue();
        assertThat(elsewhere.consumeSignal()).isFalse();

        waits.recheck("q:missed");
        assertThat(first.consumeSignal()).isTrue();
        assertThat(second.consumeSignal()).isTrue();
        assertThat(elsewhere.consumeSignal()).isFalse();
        waits.recheck("q:nobody");
    }

    @Test
    void aWaiterThatLeavesWithoutTheLockPassesItsWakeUpOnAndOneThatTookItDoesNot() {
        WaitQueues.Waiter first = waits.join("q:pass", "o1", 1, false, null);
        WaitQueues.Waiter second = waits.join("q:pass", "o2", 2, false, null);
        WaitQueues.Waiter third = waits.join("q:pass", "o3", 3, false, null);
        waits.subscribe(first);
        WakeUpListener room = provider.listeners.get("q:pass");

        room.released(null);
        waits.leave(first, false); // gave up: the wake-up goes to the next
        assertThat(second.consumeSignal()).isTrue();
        assertThat(third.consumeSignal()).isFalse();

        room.released(null);
        waits.leave(second, true); // took the lock: nothing to pass on
        assertThat(third.consumeSignal()).isFalse();

        waits.leave(third, false); // left unsignalled: nothing to pass on either
        assertThat(waits.subscriptions()).as("lingering").isEqualTo(1);
    }

    @Test
    void aDirectGrantReachesOnlyTheWaitItNames() {
        WaitQueues.Waiter first = waits.join("q:grant", "o1", 1, false, null);
        WaitQueues.Waiter sameOwnerLaterWait = waits.join("q:grant", "o1", 2, false, null);
        WaitQueues.Waiter other = waits.join("q:grant", "o2", 3, false, null);

        waits.grantedTo("q:grant", "o2", 2, 40, 123); // owner and wait id do not match one waiter
        waits.grantedTo("q:nobody", "o1", 1, 41, 123);
        assertThat(first.grant()).isNull();
        assertThat(sameOwnerLaterWait.grant()).isNull();
        assertThat(other.grant()).isNull();
        assertThat(first.consumeSignal() || sameOwnerLaterWait.consumeSignal() || other.consumeSignal())
                .isFalse();

        waits.grantedTo("q:grant", "o1", 2, 42, 123);
        assertThat(sameOwnerLaterWait.grant()).isEqualTo(new Grant(42, 123));
        assertThat(sameOwnerLaterWait.consumeSignal()).isTrue();
        assertThat(first.grant()).isNull();
        assertThat(first.consumeSignal()).isFalse();
    }

    @Test
    void aNameIsSubscribedOnceForAllItsWaiters() {
        WaitQueues.Waiter first = waits.join("q:once", "o1", 1, false, null);
        WaitQueues.Waiter second = waits.join("q:once", "o2", 2, false, null);
        assertThat(waits.subscriptions())
                .as("no subscription before a waiter asks")
                .isZero();
        assertThat(waits.subscribe(first)).as("made now: try once more").isTrue();
        assertThat(waits.subscribe(second)).isFalse();
        assertThat(waits.subscribe(first)).isFalse();
        assertThat(provider.subscribes.get()).isEqualTo(1);
        assertThat(waits.subscriptions()).isEqualTo(1);
    }

    @Test
    void anIdleRoomKeepsItsSubscriptionForTheLingerThenDropsIt() {
        WaitQueues.Waiter w = waits.join("q:linger", "o1", 1, false, null);
        waits.subscribe(w);
        waits.leave(w, true);
        scheduler.advance(Duration.ofNanos(LINGER - 1));
        assertThat(waits.subscriptions()).isEqualTo(1);
        assertThat(provider.unsubscribes.get()).isZero();
        scheduler.advance(Duration.ofNanos(1));
        assertThat(waits.subscriptions()).isZero();
        assertThat(provider.unsubscribes.get()).isEqualTo(1);
        assertThat(backend.subscriptions()).isZero();

        // The next waiter of the name gets a room of its own and subscribes anew.
        WaitQueues.Waiter next = waits.join("q:linger", "o1", 2, false, null);
        assertThat(waits.subscribe(next)).isTrue();
        assertThat(provider.subscribes.get()).isEqualTo(2);
    }

    @Test
    void aWaiterArrivingDuringTheLingerKeepsTheRoomAndItsSubscription() {
        WaitQueues.Waiter w = waits.join("q:back", "o1", 1, false, null);
        waits.subscribe(w);
        waits.leave(w, true);
        scheduler.advance(Duration.ofNanos(LINGER / 2));
        WaitQueues.Waiter again = waits.join("q:back", "o1", 2, false, null);
        assertThat(scheduler.pending()).as("the linger was cancelled").isZero();
        scheduler.advance(Duration.ofNanos(LINGER * 2));
        assertThat(waits.subscribe(again)).as("still subscribed").isFalse();
        assertThat(provider.subscribes.get()).isEqualTo(1);
        provider.listeners.get("q:back").released(null);
        assertThat(again.consumeSignal())
                .as("the room's wake-ups reach the new waiter")
                .isTrue();

        waits.leave(again, false);
        scheduler.advance(Duration.ofNanos(LINGER));
        assertThat(waits.subscriptions()).isZero();
    }

    @Test
    void aRoomWithoutASubscriptionIsDroppedAtOnceWithNothingScheduled() {
        WaitQueues.Waiter w = waits.join("q:cheap", "o1", 1, false, null);
        waits.leave(w, true);
        assertThat(scheduler.pending()).isZero();
        WaitQueues.Waiter next = waits.join("q:cheap", "o1", 2, false, null);
        assertThat(waits.subscribe(next)).isTrue();
    }

    @Test
    void withoutALingerTheLastWaiterToLeaveUnsubscribes() {
        WaitQueues noLinger = new WaitQueues(provider, scheduler, 0);
        WaitQueues.Waiter first = noLinger.join("q:nolinger", "o1", 1, false, null);
        WaitQueues.Waiter second = noLinger.join("q:nolinger", "o2", 2, false, null);
        noLinger.subscribe(first);
        noLinger.leave(first, true);
        assertThat(noLinger.subscriptions()).as("a waiter is left").isEqualTo(1);
        noLinger.leave(second, false);
        assertThat(noLinger.subscriptions()).isZero();
        assertThat(provider.unsubscribes.get()).isEqualTo(1);
        assertThat(scheduler.pending()).isZero();
    }

    @Test
    void closeCancelsEveryWaiterDropsEverySubscriptionAndCancelsWaitsThatJoinLater() {
        WaitQueues.Waiter first = waits.join("q:close-a", "o1", 1, false, null);
        WaitQueues.Waiter second = waits.join("q:close-b", "o2", 2, false, null);
        WaitQueues.Waiter lingering = waits.join("q:close-c", "o3", 3, false, null);
        waits.subscribe(first);
        waits.subscribe(lingering);
        waits.leave(lingering, true);
        assertThat(scheduler.pending()).isEqualTo(1);

        waits.close();
        assertThat(first.cancelled()).isTrue();
        assertThat(second.cancelled()).isTrue();
        assertThat(waits.subscriptions()).isZero();
        assertThat(provider.unsubscribes.get()).isEqualTo(2);
        assertThat(scheduler.pending()).as("the linger was cancelled").isZero();

        WaitQueues.Waiter late = waits.join("q:close-a", "o4", 4, false, null);
        assertThat(late.cancelled()).isTrue();
        waits.leave(late, false);
        waits.leave(first, false);
        assertThat(provider.unsubscribes.get())
                .as("nothing is unsubscribed twice")
                .isEqualTo(2);
    }

    @Test
    void aFailingUnsubscribeIsLoggedAndTheRoomStillGoes() {
        provider.failClose = true;
        WaitQueues noLinger = new WaitQueues(provider, scheduler, 0);
        WaitQueues.Waiter w = noLinger.join("q:failing", "o1", 1, false, null);
        noLinger.subscribe(w);
        noLinger.leave(w, true);
        assertThat(provider.closeFailures).containsExactly("q:failing");
        assertThat(noLinger.subscriptions()).isZero();
        WaitQueues.Waiter next = noLinger.join("q:failing", "o1", 2, false, null);
        assertThat(noLinger.subscribe(next)).isTrue();
    }

    @Test
    void awaitReturnsAtOnceWhenSignalledCancelledOrInterruptedAndOtherwiseAfterItsTime() {
        WaitQueues.Waiter w = waits.join("q:await", "o1", 1, false, null);
        long start = System.nanoTime();
        w.await(TimeUnit.MILLISECONDS.toNanos(20));
        assertThat(System.nanoTime() - start)
                .as("waited its time")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));

        provider.listeners.clear();
        waits.subscribe(w);
        provider.listeners.get("q:await").released(null);
        start = System.nanoTime();
        w.await(TimeUnit.HOURS.toNanos(1));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1000);

        w.consumeSignal();
        Thread.currentThread().interrupt();
        start = System.nanoTime();
        w.await(TimeUnit.HOURS.toNanos(1));
        assertThat(Thread.interrupted()).as("the interrupt stays set").isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1000);

        waits.close();
        start = System.nanoTime();
        w.await(TimeUnit.HOURS.toNanos(1));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1000);
    }

    @Test
    void aLateWakeUpToARoomDroppedAfterItsLingerDoesNotBlockItsSender() throws Exception {
        WaitQueues.Waiter w = waits.join("q:late", "o1", 1, false, null);
        waits.subscribe(w);
        WakeUpListener dropped = provider.listeners.get("q:late");
        waits.leave(w, true);
        scheduler.advance(Duration.ofNanos(LINGER));
        assertThat(waits.subscriptions()).isZero();
        // A notification already on its way when the subscription closed arrives on the backend's thread.
        java.util.concurrent.CompletableFuture<Void> delivered = java.util.concurrent.CompletableFuture.runAsync(() -> {
            dropped.released(null);
            dropped.missedNotifications();
        });
        delivered.get(5, TimeUnit.SECONDS);
    }

    @Test
    void twoWaitersSubscribingAtOnceMakeOneSubscriptionAndOnlyTheFirstTriesAgain() throws Exception {
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch proceed = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        WaitQueues slow = new WaitQueues(
                new ForwardingLockProvider(backend) {
                    @Override
                    public Subscription subscribe(String name, WakeUpListener listener) {
                        calls.incrementAndGet();
                        entered.countDown();
                        try {
                            proceed.await(5, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return super.subscribe(name, listener);
                    }
                },
                scheduler,
                0);
        WaitQueues.Waiter first = slow.join("q:race", "o1", 1, false, null);
        WaitQueues.Waiter second = slow.join("q:race", "o2", 2, false, null);
        // Threads of their own: the common pool may have a single thread on a small machine.
        java.util.concurrent.CompletableFuture<Boolean> firstMade = new java.util.concurrent.CompletableFuture<>();
        Thread firstThread = new Thread(() -> firstMade.complete(slow.subscribe(first)), "subscriber-1");
        firstThread.setDaemon(true);
        firstThread.start();
        assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
        java.util.concurrent.CompletableFuture<Boolean> secondMade = new java.util.concurrent.CompletableFuture<>();
        Thread secondThread = new Thread(() -> secondMade.complete(slow.subscribe(second)), "subscriber-2");
        secondThread.setDaemon(true);
        secondThread.start();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> secondThread.getState() == Thread.State.WAITING);
        proceed.countDown();
        assertThat(firstMade.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(secondMade.get(5, TimeUnit.SECONDS))
                .as("subscribed meanwhile by the first: no need to try again")
                .isFalse();
        assertThat(calls.get()).isEqualTo(1);
        slow.close();
    }

    @Test
    void closingFromOneThreadLeavesTheRoomsUsableFromAnother() throws Exception {
        WaitQueues.Waiter w = waits.join("q:closed-elsewhere", "o1", 1, false, null);
        waits.subscribe(w);
        waits.close();
        // A waiter thread that had joined before close still subscribes and leaves without hanging.
        java.util.concurrent.CompletableFuture.runAsync(() -> {
                    waits.subscribe(w);
                    waits.leave(w, false);
                })
                .get(5, TimeUnit.SECONDS);
    }
}
