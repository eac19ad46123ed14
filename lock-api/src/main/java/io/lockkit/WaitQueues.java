package io.lockkit;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * This client's waiting threads, per lock name, and the one backend subscription each name needs.
 *
 * <p>Design: a waiter joins its name's room before its first attempt, so no wake-up that follows
 * the attempt can miss it. A release notification wakes one waiter of the room (the one the
 * backend handed the lock to, when it says so), never all of them; a waiter that gives up without
 * taking the lock passes an unused wake-up on. The room subscribes to the backend when its first
 * waiter finds the lock busy; every waiter whose first attempt went out before the subscription was
 * in place then tries once more, as a release may have slipped by in between. An idle room keeps its subscription for a short linger so
 * that steady contention does not subscribe and unsubscribe on every acquisition.
 *
 * <p>A hand-over to a handle owner of this client that no longer waits here (its wait ended, and
 * the abandon that should have declined the hand-over failed, e.g. while the backend restarted) is
 * declined at once on the scheduler, with the provider's abandon: left alone it would keep the lock
 * from everyone for the backend's claim timeout. A handle's owner waits once, joining its room
 * before its first attempt, so one that is not in the room never waits or holds again and the
 * abandon cannot meet a newer hold of it. A thread's owner is used by every lock call of the
 * thread, so a hand-over to one is never declined here (its entry lapses at its deadline).
 */
final class WaitQueues {

    private static final System.Logger LOG = System.getLogger(WaitQueues.class.getName());

    private final LockProvider provider;
    private final ScheduledExecutorService scheduler;
    private final long lingerNanos;
    /** {@code "<client id>:h"}, the start of every handle owner of this client; null: hand-overs are never declined here. */
    private final @Nullable String handleOwnerPrefix;

    private final ConcurrentHashMap<String, Room> rooms = new ConcurrentHashMap<>();
    private volatile boolean closed;

    WaitQueues(LockProvider provider, ScheduledExecutorService scheduler, long lingerNanos) {
        this(provider, scheduler, lingerNanos, null);
    }

    WaitQueues(
            LockProvider provider,
            ScheduledExecutorService scheduler,
            long lingerNanos,
            @Nullable String handleOwnerPrefix) {
        this.handleOwnerPrefix = handleOwnerPrefix;
        this.provider = provider;
        this.scheduler = scheduler;
        this.lingerNanos = lingerNanos;
    }

    /**
     * One wait: a thread parked in {@link #await}, or an asynchronous wait that a signal kicks
     * through its {@code onSignal} (called under the room's lock, on the thread that delivers the
     * wake-up, so it only hands work to an executor).
     */
    static final class Waiter {
        private final @Nullable Thread thread;
        private final @Nullable Runnable onSignal;
        final String owner;
        final long waitId;
        /** Whether the wait is for a shared hold, which a release may let in beside other shared waiters. */
        final boolean shared;

        final Room room;
        private volatile boolean signalled;
        private volatile boolean cancelled;
        private volatile @Nullable Grant grant;

        Waiter(String owner, long waitId, boolean shared, Room room, @Nullable Runnable onSignal) {
            this.owner = owner;
            this.waitId = waitId;
            this.shared = shared;
            this.room = room;
            this.onSignal = onSignal;
            this.thread = onSignal == null ? Thread.currentThread() : null;
        }

        /** Parks until signalled, cancelled, interrupted, or {@code nanos} pass. */
        void await(long nanos) {
            long end = System.nanoTime() + nanos;
            while (!signalled && !cancelled && !Thread.currentThread().isInterrupted()) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                LockSupport.parkNanos(this, left);
            }
        }

        /** Clears and returns the signal, before an attempt. */
        boolean consumeSignal() {
            boolean s = signalled;
            signalled = false;
            return s;
        }

        boolean cancelled() {
            return cancelled;
        }

        /** The lock granted to this wait outright by a release (of this client, or heard), or null. */
        @Nullable
        Grant grant() {
            return grant;
        }

        /** {@link #grant()}, cleared: the wait deals with it now (hands it out or finds it lost). */
        @Nullable
        Grant takeGrant() {
            Grant g = grant;
            grant = null;
            return g;
        }

        /** Whether a wake-up arrived that no attempt has followed yet. */
        boolean signalled() {
            return signalled;
        }

        void signal() {
            signalled = true;
            wake();
        }

        void cancel() {
            cancelled = true;
            wake();
        }

        private void wake() {
            if (onSignal != null) {
                onSignal.run();
            } else {
                LockSupport.unpark(thread);
            }
        }
    }

    /** The waiters of one name. */
    final class Room implements WakeUpListener {
        final String name;
        private final ReentrantLock lock = new ReentrantLock();
        private final ReentrantLock subscribing = new ReentrantLock();
        private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
        private volatile @Nullable Subscription subscription;
        private @Nullable ScheduledFuture<?> linger;
        private boolean retired;

        Room(String name) {
            this.name = name;
        }

        @Override
        public void released(@Nullable String grantee) {
            lock.lock();
            try {
                if (grantee != null) {
                    for (Waiter w : waiters) {
                        if (w.owner.equals(grantee)) {
                            w.signal();
                            return;
                        }
                    }
                    if (handleOwnerPrefix != null && grantee.startsWith(handleOwnerPrefix)) {
                        decline(name, grantee);
                    }
                    return; // handed to an owner elsewhere: nobody here can take it
                }
                signalNext();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void granted(String grantee, long waitId, long token, Duration lease) {
            // A wait elsewhere, or one that ended (its abandon gives the grant back): nobody is woken.
            grant(grantee, waitId, Grant.heard(token, lease.toNanos()));
        }

        /** Leaves {@code g} with {@code grantee}'s wait {@code waitId}, if it waits here, and wakes it. */
        void grant(String grantee, long waitId, Grant g) {
            lock.lock();
            try {
                for (Waiter w : waiters) {
                    if (w.waitId == waitId && w.owner.equals(grantee)) {
                        w.grant = g;
                        w.signal();
                        return;
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void missedNotifications() {
            lock.lock();
            try {
                waiters.forEach(Waiter::signal);
            } finally {
                lock.unlock();
            }
        }

        /**
         * Wakes the first waiter not woken yet. When it waits for a shared hold, every shared
         * waiter not woken yet is woken too (one release may let several in; each attempts, one
         * that does not fit waits again), and so is the first exclusive waiter not woken yet: a
         * queued writer keeps new readers out, so readers woken without it would only wait again
         * while it sleeps until its retry hint. An exclusive waiter first is woken alone, so a
         * release wakes one attempt that can win, never a herd.
         */
        private void signalNext() {
            boolean shared = false;
            boolean exclusiveWoken = false;
            for (Waiter w : waiters) {
                if (w.signalled) {
                    continue;
                }
                if (!shared) {
                    w.signal();
                    if (!w.shared) {
                        return;
                    }
                    shared = true;
                } else if (w.shared || !exclusiveWoken) {
                    exclusiveWoken |= !w.shared;
                    w.signal();
                }
            }
        }
    }

    /** Declines, on the scheduler, a hand-over of {@code name} to {@code owner}, a handle owner of this client that no longer waits. */
    private void decline(String name, String owner) {
        try {
            scheduler.execute(() -> {
                try {
                    provider.abandon(name, owner, 0);
                } catch (RuntimeException e) {
                    LOG.log(
                            System.Logger.Level.DEBUG,
                            "declining lock '" + name + "' handed to " + owner + ", who no longer waits, failed",
                            e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing: the claim timeout frees it
        }
    }

    /**
     * Registers a waiter for {@code name}, in its wait {@code waitId} for a {@code shared} hold or
     * an exclusive one: the calling thread, or with an {@code onSignal}, an asynchronous wait that
     * it kicks.
     */
    Waiter join(String name, String owner, long waitId, boolean shared, @Nullable Runnable onSignal) {
        while (true) {
            Room room = rooms.computeIfAbsent(name, Room::new);
            room.lock.lock();
            try {
                if (room.retired) {
                    continue;
                }
                if (room.linger != null) {
                    room.linger.cancel(false);
                    room.linger = null;
                }
                Waiter w = new Waiter(owner, waitId, shared, room, onSignal);
                room.waiters.add(w);
                if (closed) {
                    w.cancel();
                }
                return w;
            } finally {
                room.lock.unlock();
            }
        }
    }

    /** Whether the waiter's room receives release notifications already (it keeps them while the waiter is in it). */
    boolean subscribed(Waiter w) {
        return w.room.subscription != null;
    }

    /**
     * Makes sure the waiter's room receives release notifications.
     *
     * @return whether the subscription was made just now (the caller should try once more)
     */
    boolean subscribe(Waiter w) {
        Room room = w.room;
        if (room.subscription != null) {
            return false;
        }
        room.subscribing.lock();
        try {
            if (room.subscription != null) {
                return false;
            }
            room.subscription = provider.subscribe(room.name, room);
            return true;
        } finally {
            room.subscribing.unlock();
        }
    }

    /** Removes a waiter; one that leaves without the lock passes an unused wake-up on. */
    void leave(Waiter w, boolean acquired) {
        Room room = w.room;
        boolean closeNow = false;
        room.lock.lock();
        try {
            room.waiters.remove(w);
            if (!acquired && w.signalled) {
                room.signalNext();
            }
            if (room.waiters.isEmpty() && !room.retired) {
                // A room without a subscription is cheap to make again: only a subscription lingers,
                // so the uncontended path schedules nothing.
                if (lingerNanos <= 0 || closed || room.subscription == null) {
                    closeNow = retire(room);
                } else {
                    room.linger = scheduler.schedule(() -> closeIfIdle(room), lingerNanos, TimeUnit.NANOSECONDS);
                }
            }
        } finally {
            room.lock.unlock();
        }
        if (closeNow) {
            unsubscribe(room);
        }
    }

    /** A release of {@code name} by this client handed the lock to {@code grantee}. */
    void handedTo(String name, @Nullable String grantee) {
        Room room = rooms.get(name);
        if (room != null) {
            room.released(grantee);
        }
    }

    /**
     * A release of {@code name} by this client, sent at {@code sentNanos}, granted the lock outright
     * to {@code grantee}'s wait {@code waitId}: that waiter takes it without asking the backend.
     * When the wait has ended, nothing is done here: a wait that ended without the lock gives the
     * grant back through the provider's abandon (tied to the wait id), and one that ended with it
     * took the same hold through its own attempt.
     */
    void grantedTo(String name, String grantee, long waitId, long token, long sentNanos) {
        Room room = rooms.get(name);
        if (room != null) {
            room.grant(grantee, waitId, new Grant(token, sentNanos));
        }
    }

    /** Every waiter of {@code name} on this client looks at the lock again now. */
    void recheck(String name) {
        Room room = rooms.get(name);
        if (room != null) {
            room.missedNotifications();
        }
    }

    /** Number of names with a live backend subscription. */
    int subscriptions() {
        int n = 0;
        for (Room r : rooms.values()) {
            if (r.subscription != null) {
                n++;
            }
        }
        return n;
    }

    /** Cancels every wait and drops every subscription. */
    void close() {
        closed = true;
        List<Room> all = new ArrayList<>(rooms.values());
        for (Room room : all) {
            room.lock.lock();
            try {
                room.waiters.forEach(Waiter::cancel);
                if (room.linger != null) {
                    room.linger.cancel(false);
                }
                retire(room);
            } finally {
                room.lock.unlock();
            }
            unsubscribe(room);
        }
    }

    private void closeIfIdle(Room room) {
        boolean closeNow;
        room.lock.lock();
        try {
            closeNow = room.waiters.isEmpty() && !room.retired && retire(room);
        } finally {
            room.lock.unlock();
        }
        if (closeNow) {
            unsubscribe(room);
        }
    }

    /** Called with the room's lock held. */
    private boolean retire(Room room) {
        room.retired = true;
        room.linger = null;
        rooms.remove(room.name, room);
        return true;
    }

    private void unsubscribe(Room room) {
        room.subscribing.lock();
        try {
            Subscription s = room.subscription;
            room.subscription = null;
            if (s != null) {
                s.close();
            }
        } catch (RuntimeException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "closing the wake-up subscription of lock '" + room.name + "' failed",
                    e);
        } finally {
            room.subscribing.unlock();
        }
    }
}
