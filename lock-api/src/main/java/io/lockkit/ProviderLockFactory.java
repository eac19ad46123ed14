package io.lockkit;

import io.lockkit.LockObserver.LossCause;
import io.lockkit.LockObserver.Outcome;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Renewal;
import io.lockkit.spi.Release;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The core behind {@link DistributedLockFactory}: turns a provider's single attempts into waits,
 * keeps this client's holds (counts, tokens, client-side deadlines), renews and watches them
 * through a {@link LeaseWatchdog}, and reports losses.
 *
 * <p>Owners: a thread owns its holds as {@code <clientId>:t<threadId>}, a handle as
 * {@code <clientId>:h<sequence>}; the client id is random per factory, so two factories (or two
 * processes) never share an owner. Reentrant acquisitions go to the provider too, so the backend's
 * hold counts stay truthful for operators.
 */
final class ProviderLockFactory implements DistributedLockFactory {

    private static final System.Logger LOG = System.getLogger(ProviderLockFactory.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();
    /** How long close() gives woken waiters to leave the backend's queues. */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    final LockProvider provider;
    final Ticker ticker;
    private final LockOptions defaults;
    private final Consumer<LockLostException> lossListener;
    private final Set<Capability> capabilities;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    private final LeaseWatchdog watchdog;
    final WaitQueues waits;
    final Events events;
    private final String clientId;
    private final AtomicLong handleSequence = new AtomicLong();
    /** Numbers this client's waits (see {@link LockRequest#waitId()}). */
    private final AtomicLong waitSequence = new AtomicLong();
    private final ConcurrentHashMap<HoldKey, Hold> threadHolds = new ConcurrentHashMap<>();
    private final Set<Hold> live = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** While close(Duration) waits for holds to end: their owners may still take them again. */
    private volatile boolean draining;
    /** Threads inside a wait, from joining a room until they have left the backend's queue. */
    final Wait.InFlight inFlight = new Wait.InFlight();

    private record HoldKey(String name, String owner) {
        // Written out: a record's generated equals/hashCode goes through java.lang.runtime.ObjectMethods,
        // whose cache on JDK 17 keeps the class, and with it a Jakarta EE application's class
        // loader, alive after undeploy.
        @Override
        public boolean equals(Object o) {
            return o instanceof HoldKey other && name.equals(other.name) && owner.equals(other.owner);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(name, owner);
        }
    }

    ProviderLockFactory(Builder b) {
        this.provider = b.provider;
        this.ticker = b.ticker;
        this.defaults = b.defaultOptions;
        this.lossListener = b.lossListener;
        Set<Capability> caps = provider.capabilities();
        this.capabilities = caps.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(caps);
        this.clientId = Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36);
        if (b.scheduler != null) {
            this.scheduler = b.scheduler;
            this.ownsScheduler = false;
        } else {
            ThreadFactory tf = b.threadFactory != null ? b.threadFactory : r -> {
                Thread t = new Thread(r, "lockkit-scheduler-" + clientId);
                t.setDaemon(true);
                return t;
            };
            // Two threads: a renewal blocked on an unresponsive backend occupies one, and the other
            // keeps reporting losses at their deadlines (see LeaseWatchdog).
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(2, tf);
            executor.setRemoveOnCancelPolicy(true);
            if (b.threadFactory != null) {
                // A container's managed thread factory gives a thread the context of the caller of
                // newThread (WildFly, GlassFish/Payara): make them now, at application start, not
                // lazily on a request thread whose security identity they would keep.
                executor.prestartAllCoreThreads();
            }
            this.scheduler = executor;
            this.ownsScheduler = true;
        }
        this.events = new Events(ticker, b.observers);
        this.watchdog = new LeaseWatchdog(provider, ticker, scheduler, this::lostByWatchdog, events);
        this.waits = new WaitQueues(provider, scheduler, b.subscriptionLinger.toNanos());
    }

    // ---- DistributedLockFactory ----

    @Override
    public DistributedLock getLock(String name) {
        return new ThreadOwnedLock(this, LockNames.check(name));
    }

    @Override
    public LockHandle acquire(String name, LockOptions options) throws InterruptedException {
        LockNames.check(name);
        LockOptions o = requireOptions(options);
        return tryAcquire(name, o).orElseThrow(() -> new LockNotAcquiredException(name, o.waitTime().orElse(Duration.ZERO)));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name, LockOptions options) throws InterruptedException {
        LockNames.check(name);
        ResolvedOptions o = ResolvedOptions.of(requireOptions(options), defaults);
        String owner = clientId + ":h" + handleSequence.incrementAndGet();
        long start = now();
        Grant g = take(name, owner, o, true, start);
        if (g == null) {
            return Optional.empty();
        }
        Hold h = register(name, owner, g, o);
        events.acquired(name, start, g.token(), false);
        return Optional.of(new OwnedLockHandle(this, h));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name) {
        try {
            return tryAcquire(name, defaults.toBuilder().noWait().build());
        } catch (InterruptedException e) {
            throw new AssertionError("a wait of zero cannot be interrupted", e);
        }
    }

    @Override
    public LockOptions defaultOptions() {
        return defaults;
    }

    @Override
    public void close() {
        close(Duration.ZERO);
    }

    @Override
    public void close(Duration drainTime) {
        if (drainTime == null || drainTime.isNegative()) {
            throw new IllegalArgumentException("drainTime must be zero or positive; was " + drainTime);
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        draining = !drainTime.isZero();
        waits.close();
        // Let the woken waiters leave the backend's queues while the provider is still open.
        inFlight.awaitNone(CLOSE_WAIT_NANOS);
        if (draining) {
            drain(drainTime);
        }
        draining = false;
        watchdog.stop();
        for (Hold h : new ArrayList<>(live)) {
            int count = h.count();
            if (h.markReleased(true)) {
                live.remove(h);
                releaseQuietly(h.name, h.owner, count);
                reportClosed(h, drainTime);
            }
        }
        if (ownsScheduler) {
            scheduler.shutdownNow();
        }
        provider.close();
    }

    /**
     * Waits until every hold of this factory has been released by its owner, or {@code drainTime}
     * has passed; the watchdog keeps renewing them meanwhile. Shutdown only, so a short poll
     * rather than a signal on every release.
     */
    private void drain(Duration drainTime) {
        long deadline = System.nanoTime() + drainTime.toNanos();
        if (!live.isEmpty()) {
            LOG.log(System.Logger.Level.INFO, "lockkit: closing; waiting up to {0} for {1} held lock(s) to be released",
                    drainTime, live.size());
        }
        while (!live.isEmpty() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(Math.min(TimeUnit.MILLISECONDS.toNanos(5), Math.max(1, deadline - System.nanoTime())));
        }
    }

    /** Tells the holder of a hold that close released that its lock is gone. */
    private void reportClosed(Hold h, Duration drainTime) {
        LockLostException loss = new LockLostException(h.name, h.token, "released when the lock factory closed"
                + (drainTime.isZero() ? "" : " after waiting " + drainTime + " for its holder"));
        LOG.log(System.Logger.Level.WARNING, loss.getMessage());
        events.lost(h, LossCause.FACTORY_CLOSED, loss);
        try {
            lossListener.accept(loss);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a lock loss listener failed", e);
        }
        h.lost.complete(loss);
    }

    @Override
    public String toString() {
        return "DistributedLockFactory[client " + clientId + ", " + provider + "]";
    }

    // ---- thread-owned locks ----

    String threadOwner() {
        return clientId + ":t" + Thread.currentThread().getId();
    }

    @Nullable Hold currentThreadHold(String name) {
        return threadHolds.get(new HoldKey(name, threadOwner()));
    }

    boolean lockForThread(String name, @Nullable Duration lease, @Nullable Duration wait, boolean interruptible) throws InterruptedException {
        String owner = threadOwner();
        HoldKey key = new HoldKey(name, owner);
        ResolvedOptions o = ResolvedOptions.of(lease, wait, defaults, defaults);
        long start = now();
        Grant g = take(name, owner, o, interruptible, start);
        if (g == null) {
            return false;
        }
        Hold top = threadHolds.get(key);
        if (top != null && top.state() == Hold.State.HELD) {
            if (top.token == g.token()) {
                top.increment();
                if (!top.watchdog() && !o.watchdog() && g.sentNanos() + o.lease().toNanos() - top.deadlineNanos() > 0) {
                    top.extended(o.lease(), g.sentNanos());
                    watchdog.rescheduled(top);
                }
                events.acquired(name, start, g.token(), true);
                return true;
            }
            // The backend granted a new hold, so the one we knew of had ended there: report it.
            lost(top, LossCause.NOT_HELD, "the backend no longer had this hold when the thread locked again");
        }
        Hold h = register(name, owner, g, o);
        h.previous = top;
        threadHolds.put(key, h);
        events.acquired(name, start, g.token(), false);
        return true;
    }

    void unlockForThread(String name) {
        HoldKey key = new HoldKey(name, threadOwner());
        Hold top = threadHolds.get(key);
        if (top == null) {
            throw new IllegalMonitorStateException("the current thread does not hold lock '" + LockException.abbreviate(name) + "'");
        }
        releaseOnce(top, () -> {
            if (top.previous == null) {
                threadHolds.remove(key, top);
            } else {
                threadHolds.replace(key, top, top.previous);
            }
        });
    }

    // ---- shared machinery ----

    boolean has(Capability capability) {
        return capabilities.contains(capability);
    }

    void require(Capability capability, String what) {
        if (!has(capability)) {
            throw new UnsupportedOperationException(what + " is not supported by " + provider);
        }
    }

    long now() {
        return ticker.nanoTime();
    }

    /**
     * Waits for the lock as {@code options} say (see {@link Wait}).
     *
     * @param start when the call started, on the ticker (the wait runs from here)
     * @return the grant, or null when the wait ran out
     */
    private @Nullable Grant take(String name, String owner, ResolvedOptions options, boolean interruptible, long start)
            throws InterruptedException {
        ensureOpen(name, owner);
        if (!options.watchdog()) {
            require(Capability.EXPLICIT_LEASE, "an explicit lease");
        }
        options.checkRenewalInterval();
        return new Wait(this, name, owner, options, interruptible, start).run();
    }

    long nextWaitId() {
        return waitSequence.incrementAndGet();
    }

    boolean isClosed() {
        return closed.get();
    }

    Acquisition attempt(String name, String owner, Duration lease, Duration wait, long waitId) {
        Acquisition a;
        try {
            a = provider.tryAcquire(new LockRequest(name, owner, lease, wait, waitId));
        } catch (RuntimeException e) {
            if (closed.get()) {
                throw new LockException(name, "the lock factory was closed while acquiring", e);
            }
            events.failed(name, e);
            throw e;
        }
        if (a == null) {
            throw new LockException(name, provider + " answered null to tryAcquire");
        }
        return a;
    }

    Grant granted(String name, String owner, long token, long sent) {
        if (refuses(name, owner)) {
            releaseQuietly(name, owner, 1);
            throw new LockException(name, "the lock factory was closed while acquiring");
        }
        return new Grant(token, sent);
    }

    private Hold register(String name, String owner, Grant g, ResolvedOptions options) {
        Hold h = new Hold(name, owner, g.token(), options.lease(), options.watchdog(), options.renewalInterval(), g.sentNanos());
        live.add(h);
        watchdog.watch(h);
        if (closed.get() && h.markReleased(true)) {
            live.remove(h);
            releaseQuietly(h.name, h.owner, 1);
            throw new LockException(name, "the lock factory was closed while acquiring");
        }
        return h;
    }

    /**
     * Releases one hold count of {@code h}; {@code whenEmpty} runs once the hold has no count left
     * on this client.
     */
    void releaseOnce(Hold h, Runnable whenEmpty) {
        switch (h.state()) {
            case RELEASED -> {
                if (h.releasedByClose()) {
                    whenEmpty.run();
                    throw new LockLostException(h.name, h.token, "released when the lock factory closed");
                }
                throw h.alreadyReleased("this owner");
            }
            case LOST -> {
                if (h.decrement() <= 0) {
                    whenEmpty.run();
                }
                releaseQuietly(h.name, h.owner, 1);
                throw h.lossToThrow();
            }
            case HELD -> releaseHeld(h, whenEmpty);
        }
    }

    private void releaseHeld(Hold h, Runnable whenEmpty) {
        boolean last = h.count() <= 1;
        Release r;
        long sent = now();
        try {
            r = provider.release(h.name, h.owner);
            if (last) {
                // A retried reentrant request may have left the backend one count ahead of us.
                for (int i = 0; i < 64 && r.outcome() == Release.Outcome.STILL_HELD; i++) {
                    r = provider.release(h.name, h.owner);
                }
            }
        } catch (RuntimeException e) {
            events.failed(h.name, e);
            if (last && h.markReleased(false)) {
                // Stop renewing: the backend lets the lease lapse even though we could not tell it.
                live.remove(h);
                watchdog.unwatch(h);
                whenEmpty.run();
            } else if (!last) {
                h.decrement();
            }
            releaseUnanswered(h.name);
            throw e;
        }
        switch (r.outcome()) {
            case RELEASED -> {
                if (h.markReleased(false)) {
                    live.remove(h);
                    watchdog.unwatch(h);
                    events.released(h);
                }
                whenEmpty.run();
                passOn(h.name, r, sent);
            }
            case STILL_HELD -> {
                if (h.decrement() <= 0) {
                    whenEmpty.run();
                }
            }
            case NOT_HELD -> {
                lost(h, LossCause.NOT_HELD, "the lease had lapsed on the backend before the release");
                if (h.decrement() <= 0) {
                    whenEmpty.run();
                }
                throw h.lossToThrow();
            }
        }
    }

    /** Takes the hold once more for the same owner (a handle's reentrant acquisition). */
    void reacquire(Hold h) {
        h.requireHeld("this handle");
        ensureOpen(h.name, h.owner);
        long start = now();
        Acquisition a = attempt(h.name, h.owner, h.lease(), Duration.ZERO, 0);
        if (!a.isAcquired() || a.fencingToken() != h.token) {
            if (a.isAcquired()) {
                releaseQuietly(h.name, h.owner, 1);
            }
            lost(h, LossCause.NOT_HELD, "the backend no longer had this hold when it was acquired again");
            throw h.lossToThrow();
        }
        h.increment();
        events.acquired(h.name, start, h.token, true);
    }

    /**
     * Leaves {@code h} to lapse on the backend {@code delay} from now: its lease set to the delay,
     * not renewed, and the hold forgotten here; with more than one count, or no delay, a release.
     */
    void releaseAfter(Hold h, Duration delay, Runnable whenEmpty) {
        if (delay.isZero() || h.state() != Hold.State.HELD || h.count() > 1) {
            releaseOnce(h, whenEmpty);
            return;
        }
        extend(h, delay); // ends the watchdog's renewals; throws when the hold is gone
        if (h.markReleased(false)) {
            live.remove(h);
            watchdog.unwatch(h);
            events.released(h);
            whenEmpty.run();
        }
    }

    /** Sets a hold's lease to {@code lease} from now. */
    void extend(Hold h, Duration lease) {
        require(Capability.EXPLICIT_LEASE, "extending a lease");
        h.requireHeld("this owner");
        long sent = now();
        if (!h.isValid(sent)) {
            lost(h, LossCause.LEASE_EXPIRED, "the lease ran out before it was extended");
            throw h.lossToThrow();
        }
        Renewal renewal = new Renewal(h.name, h.owner, lease);
        List<Renewal> gone;
        try {
            gone = provider.renew(List.of(renewal));
        } catch (RuntimeException e) {
            events.failed(h.name, e);
            throw e;
        }
        if (!gone.isEmpty()) {
            lost(h, LossCause.NOT_HELD, "the backend no longer had this hold when it was extended");
            throw h.lossToThrow();
        }
        h.extended(lease, sent);
        watchdog.rescheduled(h);
    }

    boolean forceRelease(String name) {
        require(Capability.FORCE_RELEASE, "force release");
        ensureOpen(name);
        boolean wasHeld = provider.forceRelease(name);
        for (Hold h : live) {
            if (h.name.equals(name)) {
                lost(h, LossCause.FORCE_RELEASED, "the lock was force-released");
            }
        }
        waits.handedTo(name, null);
        return wasHeld;
    }

    boolean isLocked(String name) {
        require(Capability.INSPECTION, "inspecting a lock");
        ensureOpen(name);
        return provider.inspect(name).isPresent();
    }

    /** A loss the watchdog found: past the client-side deadline, or a renewal found the hold gone. */
    private void lostByWatchdog(Hold h, String reason) {
        lost(h, h.deadlineNanos() - now() <= 0 ? LossCause.LEASE_EXPIRED : LossCause.NOT_HELD, reason);
    }

    /** Reports a hold as lost, once. */
    void lost(Hold h, LossCause cause, String reason) {
        LockLostException loss = h.markLost(reason);
        if (loss == null) {
            return;
        }
        live.remove(h);
        watchdog.unwatch(h);
        LOG.log(System.Logger.Level.WARNING, loss.getMessage());
        events.lost(h, cause, loss);
        try {
            lossListener.accept(loss);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a lock loss listener failed", e);
        }
        h.lost.complete(loss);
    }

    /**
     * Releases a hold this client no longer counts on (lost, or released by close or a closed
     * factory), passing on whatever the release handed over: the backend may still have had the
     * hold, and a release that frees it can grant the lock to a waiter of this client.
     */
    private void releaseQuietly(String name, String owner, int times) {
        try {
            for (int i = 0; i < Math.max(1, times); i++) {
                long sent = now();
                Release r = provider.release(name, owner);
                if (r.outcome() != Release.Outcome.STILL_HELD) {
                    passOn(name, r, sent);
                    return;
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "releasing lock '" + name + "' failed; its lease will lapse", e);
            releaseUnanswered(name);
        }
    }

    /**
     * Tells the grantee of a release sent at {@code sent} that it holds the lock (a direct grant:
     * its lease was set by the release, so it runs from no earlier than {@code sent}), or wakes it
     * to claim a hand-over. Every release that may free a lock ends here, whatever became of the
     * releasing hold.
     */
    private void passOn(String name, @Nullable Release r, long sent) {
        if (r == null || r.grantee() == null) {
            return;
        }
        String grantee = r.grantee();
        if (r.granted()) {
            waits.grantedTo(name, grantee, r.grantWaitId(), r.grantToken(), sent);
        } else {
            waits.handedTo(name, grantee);
        }
    }

    /**
     * A release whose answer never came may still have run and granted the lock to a waiter of
     * this client that nobody will tell: the waiters of that name look again now rather than at
     * their retry hint (an attempt of the granted wait takes the grant, with a lease set anew).
     */
    private void releaseUnanswered(String name) {
        waits.recheck(name);
    }

    private void ensureOpen(String name) {
        if (closed.get()) {
            throw new LockException(name, "the lock factory is closed");
        }
    }

    /** Like {@link #ensureOpen(String)}, but while draining the owner of a live hold may take it again. */
    private void ensureOpen(String name, String owner) {
        if (refuses(name, owner)) {
            throw new LockException(name, draining ? "the lock factory is closing" : "the lock factory is closed");
        }
    }

    private boolean refuses(String name, String owner) {
        if (!closed.get()) {
            return false;
        }
        if (draining) {
            for (Hold h : live) {
                if (h.owner.equals(owner) && h.name.equals(name) && h.state() == Hold.State.HELD) {
                    return false;
                }
            }
        }
        return true;
    }

    private static LockOptions requireOptions(LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        return options;
    }

    // ---- for tests in this package ----

    int watchedHolds() {
        return watchdog.watched();
    }

    int liveSubscriptions() {
        return waits.subscriptions();
    }
}
