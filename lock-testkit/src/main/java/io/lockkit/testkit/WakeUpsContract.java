package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * "Wake-ups" ({@link LockContractTest.WakeUps}): a release wakes one waiter of a client, not all of
 * them; release notifications reach the open subscriptions of the released name and nothing else.
 */
abstract class WakeUpsContract extends ContractGroup {

    WakeUpsContract(LockContractTest kit) {
        super(kit);
    }

    /** Counts the calls of {@link #subscribe}'s listeners; remembers each owner's latest retry hint. */
    private static final class Watching extends ForwardingLockProvider {
        final CountingLockProvider counting;
        final Map<String, Duration> latestHints = new ConcurrentHashMap<>();

        Watching(CountingLockProvider counting) {
            super(counting);
            this.counting = counting;
        }

        @Override
        public Acquisition tryAcquire(LockRequest r) {
            Acquisition a = super.tryAcquire(r);
            if (!a.isAcquired()) {
                latestHints.put(r.owner(), a.retryAfter());
            }
            return a;
        }

        Duration shortestHint() {
            return latestHints.values().stream().min(Duration::compareTo).orElse(Duration.ZERO);
        }
    }

    /** Whether a thread is parked or blocked (or done): a sign that it is waiting, not starting. */
    private static boolean settled(Thread t) {
        Thread.State s = t.getState();
        return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.TERMINATED;
    }

    @Test
    @DisplayName("a release wakes one of a client's 10 waiting threads, not all of them")
    void aReleaseWakesOneWaiterOfAClient() throws Exception {
        String name = name();
        Duration longLease = scaled(Duration.ofSeconds(30)); // long retry hints: only wake-ups make waiters try
        LockHandle held = client(longLease, e -> {}).acquire(name, LockOptions.noWait());
        Watching watching = new Watching(new CountingLockProvider(provider()));
        DistributedLockFactory waiting = closeAfterTest(DistributedLockFactory.builder(watching)
                .defaultOptions(LockOptions.builder().watchdogLease(longLease).build())
                .subscriptionLinger(Duration.ZERO)
                .build());
        int waiters = 10;
        CountDownLatch won = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            threads.add(start("waiter-" + i, () -> {
                try {
                    LockHandle h = waiting.acquire(name, waitFor(Duration.ofSeconds(60)));
                    won.countDown();
                    letGo.await();
                    h.release();
                } catch (InterruptedException | LockException e) {
                    // the test ended
                }
            }));
        }
        try {
            await("10 waiters parked, each told to try again no sooner than 5 s from now")
                    .atMost(scaled(Duration.ofSeconds(5)))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> threads.stream().allMatch(WakeUpsContract::settled)
                            && watching.latestHints.size() == waiters
                            && watching.shortestHint().compareTo(scaled(Duration.ofSeconds(5))) > 0);
        } catch (ConditionTimeoutException e) {
            assumeTrue(
                    false,
                    "the provider's waiters poll (shortest retry hint " + watching.shortestHint()
                            + "): a herd cannot be told from polling");
        }
        long before = watching.counting.acquisitions();
        held.release();
        assertThat(won.await(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS))
                .as("a waiter took the released lock")
                .isTrue();
        // Woken waiters try at once; a second is ample for a herd to show.
        await("no more than 3 attempts after the release")
                .during(scaled(Duration.ofSeconds(1)))
                .atMost(scaled(Duration.ofSeconds(2)))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> watching.counting.acquisitions() - before <= 3);
        letGo.countDown();
    }

    /** A listener that counts its release notifications, and its "notifications may have been missed". */
    private static final class Heard implements WakeUpListener {
        final AtomicInteger released = new AtomicInteger();
        final AtomicInteger missed = new AtomicInteger();
        /** Counted down by the first call of either kind. */
        final CountDownLatch anything = new CountDownLatch(1);

        @Override
        public void released(@Nullable String grantee) {
            released.incrementAndGet();
            anything.countDown();
        }

        @Override
        public void missedNotifications() {
            missed.incrementAndGet(); // not a release: a provider may say so after subscribing
            anything.countDown();
        }
    }

    @Test
    @DisplayName(
            "a subscription made as the last one of its name closes hears the next release: the close never takes the newer listener with it")
    // Alone: its two threads spin while they race, which would starve other tests of the cores.
    @ResourceLock(value = ContractGroup.BACKEND, mode = ResourceAccessMode.READ_WRITE)
    void subscriptionRacingTheLastCloseHearsTheNextRelease() throws Exception {
        LockProvider releasing = closeAfterTest(provider());
        LockProvider waiting = closeAfterTest(provider());
        // The first rounds alternate: subscribing right after the last close returned (a close whose
        // work goes on in the background, such as an unsubscription the backend confirms later, is
        // still under way), and closing and subscribing at once from two threads. Then rounds race
        // until RACES of them did (SubscriptionRace) or 10 s passed: a list dropped under a new
        // listener loses it within a few hundred rounds.
        SubscriptionRace race = new SubscriptionRace(this, Duration.ofSeconds(5));
        long end = System.nanoTime() + scaled(Duration.ofSeconds(10)).toNanos();
        for (int round = 0; round < 20 || (race.races() < RACES && System.nanoTime() - end < 0); round++) {
            subscriptionRound(releasing, waiting, round, round < 20 && round % 2 == 0 ? null : race);
        }
    }

    /** Raced rounds of the racing-subscription test (both threads on time), unless 10 s pass first. */
    private static final int RACES = 1_000;

    /**
     * One round of the racing-subscription test on a new name: the name's last subscription closes
     * as a new one is made (once the close returned when {@code race} is null, else racing it), and
     * a release of the name while a waiter is queued must reach the new one.
     */
    private void subscriptionRound(
            LockProvider releasing, LockProvider waiting, int round, @Nullable SubscriptionRace race)
            throws InterruptedException {
        if (race != null) {
            race.prepare();
        }
        String name = name();
        String holder = hold(releasing, name);
        Subscription last = waiting.subscribe(name, new Heard());
        Heard heard = new Heard();
        Subscription next;
        if (race == null) {
            last.close();
            next = waiting.subscribe(name, heard);
        } else {
            next = race.race(last, () -> waiting.subscribe(name, heard));
        }
        // As a waiter does: an attempt after subscribing, which also queues it.
        String waiter = RenewalContract.newClient() + ":h1";
        Duration lease = scaled(Duration.ofSeconds(20));
        Acquisition busy = waiting.tryAcquire(new LockRequest(name, waiter, lease, lease, 1));
        assertThat(busy.isAcquired()).isFalse();
        if (round == 0) {
            assumeTrue(
                    busy.retryAfter().compareTo(scaled(Duration.ofSeconds(5))) > 0,
                    "the provider's waiters poll (retry hint " + busy.retryAfter()
                            + " after subscribing): it need not notify other clients of releases");
        }
        releasing.release(name, holder);
        assertThat(heard.anything.await(scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS))
                .as(
                        "round %d (%s): the release heard by the subscription made as the name's last one closed",
                        round + 1, race == null ? "after the close returned" : race.lastRound())
                .isTrue();
        waiting.abandon(name, waiter, 1);
        next.close();
    }

    @Test
    @DisplayName(
            "a release by another client just after subscribe returned is heard: as a release, or as notifications that may have been missed")
    void releaseJustAfterSubscribingIsHeard() throws Exception {
        String name = name();
        LockProvider releasing = closeAfterTest(provider());
        LockProvider waiting = closeAfterTest(provider());
        String holder = RenewalContract.newClient() + ":h1";
        String waiter = RenewalContract.newClient() + ":h1";
        Duration lease = scaled(Duration.ofSeconds(20));
        assertThat(releasing
                        .tryAcquire(new LockRequest(name, holder, lease, Duration.ZERO))
                        .isAcquired())
                .isTrue();
        Heard heard = new Heard();
        Subscription s = waiting.subscribe(name, heard);
        // As the core does: an attempt after subscribing, which also queues the waiter.
        Acquisition busy = waiting.tryAcquire(new LockRequest(name, waiter, lease, lease, 1));
        assertThat(busy.isAcquired()).isFalse();
        assumeTrue(
                busy.retryAfter().compareTo(scaled(Duration.ofSeconds(5))) > 0,
                "the provider's waiters poll (retry hint " + busy.retryAfter()
                        + " after subscribing): it need not notify other clients of releases");
        releasing.release(name, holder);
        await("the release heard by the subscription made just before")
                .atMost(scaled(Duration.ofSeconds(5)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> heard.released.get() + heard.missed.get() > 0);
        waiting.abandon(name, waiter, 1);
        s.close();
    }

    @Test
    @DisplayName(
            "a release notifies the open subscriptions of its name only: not one closed before, not one of a name it starts with")
    void releasesReachOnlyOpenSubscriptionsOfTheName() throws Exception {
        String name = name();
        String longer = name + "x";
        LockProvider releasing = closeAfterTest(provider());
        LockProvider waiting = closeAfterTest(provider());
        Heard first = new Heard();
        Heard closed = new Heard();
        Heard last = new Heard();
        Heard ofLonger = new Heard();
        // The name is held while its subscriptions listen, as a waiter's are: a backend that looks
        // at the locks its waiters wait for (rather than being told of releases) may report a free
        // lock as released, which a held one never is.
        String holder = hold(releasing, name);
        List<Subscription> open = new ArrayList<>();
        open.add(releasing.subscribe(name, first));
        Subscription closing = releasing.subscribe(name, closed);
        open.add(releasing.subscribe(name, last));
        open.add(releasing.subscribe(longer, ofLonger));
        closing.close();

        releaseWhileQueued(releasing, waiting, longer);
        await("the release of " + longer + " heard by its subscription")
                .atMost(scaled(Duration.ofSeconds(5)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> ofLonger.released.get() > 0);
        // Whatever else a release notifies, it does at once: a short look for late deliveries.
        await("no subscription of " + name + " hears the release of " + longer)
                .during(scaled(Duration.ofMillis(300)))
                .atMost(scaled(Duration.ofSeconds(1)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> first.released.get() + closed.released.get() + last.released.get() == 0);

        releaseWhileQueued(releasing, waiting, name, holder);
        await("the release of " + name + " heard by its open subscriptions")
                .atMost(scaled(Duration.ofSeconds(5)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> first.released.get() > 0 && last.released.get() > 0);
        await("no release heard by the closed subscription")
                .during(scaled(Duration.ofMillis(300)))
                .atMost(scaled(Duration.ofSeconds(1)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> closed.released.get() == 0);
        open.forEach(Subscription::close);
    }

    @Test
    @DisplayName("an open subscription hears every release of its name, not only the first")
    void anOpenSubscriptionHearsEveryRelease() throws Exception {
        String name = name();
        LockProvider releasing = closeAfterTest(provider());
        LockProvider waiting = closeAfterTest(provider());
        Heard heard = new Heard();
        Subscription s = waiting.subscribe(name, heard);
        Duration lease = scaled(Duration.ofSeconds(20));
        for (int i = 1; i <= 3; i++) {
            int releases = i;
            String holder = hold(releasing, name);
            String waiter = RenewalContract.newClient() + ":h1";
            Acquisition busy = waiting.tryAcquire(new LockRequest(name, waiter, lease, lease, 1));
            assertThat(busy.isAcquired()).isFalse();
            assumeTrue(
                    busy.retryAfter().compareTo(scaled(Duration.ofSeconds(5))) > 0,
                    "the provider's waiters poll (retry hint " + busy.retryAfter()
                            + "): it need not notify other clients of releases");
            releasing.release(name, holder);
            waiting.abandon(name, waiter, 1);
            await("release " + releases + " heard by the subscription open throughout")
                    .atMost(scaled(Duration.ofSeconds(5)))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> heard.released.get() + heard.missed.get() >= releases);
        }
        s.close();
    }

    /**
     * Takes {@code name} on {@code releasing}, queues an owner of another client for it on
     * {@code waiting} (a backend that notifies only when someone waits then has a reason to), and
     * releases it; the waiter then gives up, which gives back a hand-over made to it.
     */
    private void releaseWhileQueued(LockProvider releasing, LockProvider waiting, String name) {
        releaseWhileQueued(releasing, waiting, name, hold(releasing, name));
    }

    /** Takes {@code name} for a new owner of {@code releasing}'s client; returns the owner. */
    private String hold(LockProvider releasing, String name) {
        String holder = RenewalContract.newClient() + ":h1";
        assertThat(releasing
                        .tryAcquire(new LockRequest(name, holder, scaled(Duration.ofSeconds(20)), Duration.ZERO))
                        .isAcquired())
                .isTrue();
        return holder;
    }

    /** Queues a waiter of {@code waiting} on {@code name}, then releases {@code holder}'s hold. */
    private void releaseWhileQueued(LockProvider releasing, LockProvider waiting, String name, String holder) {
        String waiter = RenewalContract.newClient() + ":h1";
        Duration lease = scaled(Duration.ofSeconds(20));
        assertThat(waiting.tryAcquire(new LockRequest(name, waiter, lease, lease, 1))
                        .isAcquired())
                .isFalse();
        releasing.release(name, holder);
        waiting.abandon(name, waiter, 1);
    }
}
