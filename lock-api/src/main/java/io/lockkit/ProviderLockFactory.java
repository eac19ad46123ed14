package io.lockkit;

import io.lockkit.LockObserver.LossCause;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The core behind {@link DistributedLockFactory}: turns a provider's single attempts into waits
 * (each a {@link Wait}), keeps this client's holds (counts, tokens, client-side deadlines), renews
 * and watches them through a {@link LeaseWatchdog}, and reports losses (both in {@link Holds}).
 *
 * <p>Owners: a thread owns its holds as {@code <clientId>:t<threadId>}, a handle as
 * {@code <clientId>:h<sequence>}; the client id names host and process and differs per factory
 * ({@link ClientIds}), so two factories (or two processes) never share an owner. Reentrant
 * acquisitions go to the provider too, so the backend's hold counts stay truthful for operators.
 */
final class ProviderLockFactory implements DistributedLockFactory {

    private static final System.Logger LOG = System.getLogger(ProviderLockFactory.class.getName());
    /** How long close() gives woken waiters to leave the backend's queues. */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    final LockProvider provider;
    final Ticker ticker;
    private final LockOptions defaults;
    private final Set<Capability> capabilities;
    final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    /** Where asynchronous acquisitions call the provider and complete their stages. */
    final Executor asyncExecutor;
    /** The factory's own {@link #asyncExecutor}, shut down at close; null when the caller gave one. */
    private final @Nullable ExecutorService ownAsyncExecutor;
    /** The open leaderships of this factory, one per name. */
    final Leaderships leaderships;
    /** This client's holds, the watchdog that keeps them, and their releases and losses. */
    final Holds holds;

    final WaitQueues waits;
    /** Abandons that failed while the backend was unreachable, sent again when it answers. */
    final Abandons abandons;

    final Events events;
    private final String clientId;
    /** Every thread owner of this client starts with this. */
    private final String threadOwnerPrefix;

    private final AtomicLong handleSequence = new AtomicLong();
    /** Numbers this client's waits (see {@link LockRequest#waitId()}). */
    private final AtomicLong waitSequence = new AtomicLong();

    private final ConcurrentHashMap<HoldKey, Hold> threadHolds = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** While close(Duration) waits for holds to end: their owners may still take them again. */
    private volatile boolean draining;
    /** Threads inside a wait, from joining a room until they have left the backend's queue. */
    final Wait.InFlight inFlight = new Wait.InFlight();

    /** A thread owner's hold of a name (see {@link Holds#unsettle}). */
    record HoldKey(String name, String owner) {
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
        Set<Capability> caps = provider.capabilities();
        this.capabilities = caps.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(caps);
        this.clientId = b.clientId != null ? b.clientId : ClientIds.next();
        this.threadOwnerPrefix = clientId + ":t";
        provider.useClientId(clientId); // before any other call: the backend may show it to operators
        this.leaderships = new Leaderships(b.threadFactory, b.clock);
        if (b.scheduler != null) {
            this.scheduler = b.scheduler;
            this.ownsScheduler = false;
        } else {
            ThreadFactory tf = b.threadFactory != null
                    ? b.threadFactory
                    : r -> {
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
        if (b.asyncExecutor != null) {
            this.asyncExecutor = b.asyncExecutor;
            this.ownAsyncExecutor = null;
        } else {
            ThreadPoolExecutor async = asyncPool(b.threadFactory, clientId);
            this.ownAsyncExecutor = async;
            if (b.threadFactory == null) {
                this.asyncExecutor = async;
            } else {
                // A container's managed thread factory gives a thread the context of the caller of
                // newThread, and the pool makes a thread in the execute() that needs one: hand tasks
                // over from a scheduler thread (made at build, with the application's context), never
                // from the caller of acquireAsync, whose request identity the thread would keep.
                ScheduledExecutorService handOver = this.scheduler;
                this.asyncExecutor = task -> handOver.execute(() -> {
                    try {
                        async.execute(task);
                    } catch (java.util.concurrent.RejectedExecutionException e) {
                        task.run(); // closing: the step finds the factory closed and ends the wait
                    }
                });
            }
        }
        this.events = new Events(ticker, b.observers);
        this.waits = new WaitQueues(provider, scheduler, b.subscriptionLinger.toNanos(), clientId + ":h");
        this.holds = new Holds(this, b.lossListener, scheduler);
        String threads = threadOwnerPrefix;
        this.abandons = new Abandons(provider, scheduler, owner -> owner.startsWith(threads));
        this.health = new FactoryHealth(
                provider,
                ticker,
                clientId,
                holds.watchdog,
                scheduler,
                events.losses,
                defaults,
                b.threadFactory,
                closed::get,
                holds::liveCount,
                leaderships::leading);
        LOG.log(
                System.Logger.Level.INFO,
                "lockkit: DistributedLockFactory started as client {0} over {1}",
                clientId,
                provider);
    }

    /**
     * The factory's own executor for asynchronous acquisitions: {@value #ASYNC_THREADS} threads,
     * made when an acquisition needs one and gone after a minute without work.
     */
    private static ThreadPoolExecutor asyncPool(@Nullable ThreadFactory threadFactory, String clientId) {
        ThreadFactory tf = threadFactory != null
                ? threadFactory
                : r -> {
                    Thread t = new Thread(r, "lockkit-async-" + clientId);
                    t.setDaemon(true);
                    return t;
                };
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                ASYNC_THREADS, ASYNC_THREADS, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(), tf);
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Threads of the factory's own executor for asynchronous acquisitions. */
    static final int ASYNC_THREADS = 2;

    // ---- DistributedLockFactory ----

    @Override
    public DistributedLock getLock(String name) {
        return new ThreadOwnedLock(this, LockNames.check(name));
    }

    @Override
    public LockHandle acquire(String name, LockOptions options) throws InterruptedException {
        LockNames.check(name);
        LockOptions o = requireOptions(options);
        return tryAcquire(name, o)
                .orElseThrow(
                        () -> new LockNotAcquiredException(name, o.waitTime().orElse(Duration.ZERO)));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name, LockOptions options) throws InterruptedException {
        LockNames.check(name);
        ResolvedOptions o = ResolvedOptions.of(requireOptions(options), defaults);
        String owner = clientId + ":h" + handleSequence.incrementAndGet();
        long start = now();
        Grant g = take(name, owner, o, true, start, 0);
        if (g == null) {
            return Optional.empty();
        }
        return Optional.of(handleFor(name, owner, g, o, start));
    }

    /** The handle of a hold won for a handle owner: registered, watched, reported. */
    LockHandle handleFor(String name, String owner, Grant g, ResolvedOptions o, long start) {
        Hold h = holds.register(name, owner, g, o);
        events.acquired(name, start, g.token(), false);
        return new OwnedLockHandle(this, h);
    }

    @Override
    public CompletionStage<LockHandle> acquireAsync(String name, LockOptions options) {
        LockNames.check(name);
        LockOptions o = requireOptions(options);
        Duration waited = o.waitTime().orElse(Duration.ZERO);
        return startAsync(name, o, handle -> handle.orElseThrow(() -> new LockNotAcquiredException(name, waited)));
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryAcquireAsync(String name, LockOptions options) {
        LockNames.check(name);
        return startAsync(name, requireOptions(options), handle -> handle);
    }

    /**
     * Starts an {@link AsyncWait}: checks the options as {@link #take} does (synchronously: bad input
     * throws), and a closed factory fails the stage rather than the call.
     */
    private <T> CompletionStage<T> startAsync(
            String name, LockOptions options, java.util.function.Function<Optional<LockHandle>, T> result) {
        ResolvedOptions o = ResolvedOptions.of(options, defaults);
        if (!o.watchdog()) {
            require(Capability.EXPLICIT_LEASE, "an explicit lease");
        }
        o.checkRenewalInterval();
        String owner = clientId + ":h" + handleSequence.incrementAndGet();
        long start = now();
        try {
            ensureOpen(name, owner);
        } catch (LockException e) {
            return CompletableFuture.failedFuture(e);
        }
        return new AsyncWait<>(this, name, owner, o, start, asyncExecutor, result).start();
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
    public String clientId() {
        return clientId;
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
        // Leaders step down first: their onRevoked runs before their locks go.
        leaderships.closeAll();
        draining = !drainTime.isZero();
        waits.close();
        // Let the woken waiters leave the backend's queues while the provider is still open.
        inFlight.awaitNone(CLOSE_WAIT_NANOS);
        if (draining) {
            holds.drain(drainTime);
        }
        draining = false;
        holds.watchdog.stop();
        holds.releaseOnClose(drainTime);
        if (ownAsyncExecutor != null) {
            // Not shutdownNow: steps still queued run, find the factory closed and fail their stages.
            ownAsyncExecutor.shutdown();
        }
        if (ownsScheduler) {
            scheduler.shutdownNow();
        }
        provider.close();
    }

    @Override
    public String toString() {
        return "DistributedLockFactory[client " + clientId + ", " + provider + "]";
    }

    // ---- leadership ----

    @Override
    public Leadership leadership(String name, LeadershipOptions options) {
        return leaderships.open(this, name, options);
    }

    // ---- thread-owned locks ----

    String threadOwner() {
        return threadOwnerPrefix + Thread.currentThread().getId();
    }

    /** Whether {@code owner} is a thread of this client (handle owners are never used twice). */
    boolean isThreadOwner(String owner) {
        return owner.startsWith(threadOwnerPrefix);
    }

    @Nullable
    Hold currentThreadHold(String name) {
        return threadHolds.get(new HoldKey(name, threadOwner()));
    }

    boolean lockForThread(String name, @Nullable Duration lease, @Nullable Duration wait, boolean interruptible)
            throws InterruptedException {
        String owner = threadOwner();
        HoldKey key = new HoldKey(name, owner);
        ResolvedOptions o = ResolvedOptions.of(lease, wait, defaults, defaults);
        long start = now();
        Hold held = threadHolds.get(key);
        if (held == null || held.state() != Hold.State.HELD) {
            holds.settle(key);
        }
        Grant g = take(
                name, owner, o, interruptible, start, held != null && held.state() == Hold.State.HELD ? held.token : 0);
        if (g == null) {
            return false;
        }
        Hold top = threadHolds.get(key);
        if (top != null && top.state() == Hold.State.HELD) {
            if (top.token == g.token()) {
                top.increment();
                if (!top.watchdog()
                        && !o.watchdog()
                        && g.sentNanos() + o.lease().toNanos() - top.deadlineNanos() > 0) {
                    top.extended(o.lease(), g.sentNanos());
                    holds.watchdog.rescheduled(top);
                }
                events.acquired(name, start, g.token(), true);
                return true;
            }
            // The backend granted a new hold, so the one we knew of had ended there: report it.
            holds.lost(top, LossCause.NOT_HELD, "the backend no longer had this hold when the thread locked again");
        }
        Hold h = holds.register(name, owner, g, o);
        h.previous = top;
        threadHolds.put(key, h);
        events.acquired(name, start, g.token(), false);
        return true;
    }

    void unlockForThread(String name) {
        HoldKey key = new HoldKey(name, threadOwner());
        Hold top = threadHolds.get(key);
        if (top == null) {
            throw new IllegalMonitorStateException(
                    "the current thread does not hold lock '" + LockException.abbreviate(name) + "'");
        }
        holds.releaseOnce(top, () -> {
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
     * @param heldToken the token of the owner's hold of the name this client still counts on, or 0
     * @return the grant, or null when the wait ran out
     */
    private @Nullable Grant take(
            String name, String owner, ResolvedOptions options, boolean interruptible, long start, long heldToken)
            throws InterruptedException {
        ensureOpen(name, owner);
        if (!options.watchdog()) {
            require(Capability.EXPLICIT_LEASE, "an explicit lease");
        }
        options.checkRenewalInterval();
        return new Wait(this, name, owner, options, interruptible, start, heldToken).run();
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
            holds.unsettle(name, owner);
            if (closed.get()) {
                throw new LockException(name, "the lock factory was closed while acquiring", e);
            }
            events.failed(name, e);
            throw e;
        }
        if (a == null) {
            throw new LockException(name, provider + " answered null to tryAcquire");
        }
        abandons.backendAnswered();
        return a;
    }

    Grant granted(String name, String owner, long token, long sent) {
        if (refuses(name, owner)) {
            holds.releaseQuietly(name, owner);
            throw new LockException(name, "the lock factory was closed while acquiring");
        }
        return new Grant(token, sent);
    }

    @Override
    public boolean forceRelease(String name) {
        require(Capability.FORCE_RELEASE, "force release");
        LockNames.check(name);
        ensureOpen(name);
        boolean wasHeld = provider.forceRelease(name);
        holds.forceReleased(name);
        waits.handedTo(name, null);
        return wasHeld;
    }

    boolean isLocked(String name) {
        require(Capability.INSPECTION, "inspecting a lock");
        ensureOpen(name);
        return provider.inspect(name).isPresent();
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        require(Capability.INSPECTION, "inspecting a lock");
        LockNames.check(name);
        ensureOpen(name);
        return provider.inspect(name).flatMap(state -> LockListing.info(name, state));
    }

    @Override
    public Stream<LockInfo> locks(String prefix) {
        require(Capability.LISTING, "listing locks");
        LockListing.checkPrefix(prefix);
        Runnable checkOpen = () -> {
            if (closed.get()) {
                throw new LockException(null, "the lock factory is closed");
            }
        };
        checkOpen.run();
        return LockListing.stream(provider, prefix, LockListing.PAGE_SIZE, checkOpen);
    }

    void ensureOpen(String name) {
        if (closed.get()) {
            throw new LockException(name, "the lock factory is closed");
        }
    }

    /** Like {@link #ensureOpen(String)}, but while draining the owner of a live hold may take it again. */
    void ensureOpen(String name, String owner) {
        if (refuses(name, owner)) {
            throw new LockException(name, draining ? "the lock factory is closing" : "the lock factory is closed");
        }
    }

    private boolean refuses(String name, String owner) {
        if (!closed.get()) {
            return false;
        }
        return !draining || !holds.holds(name, owner);
    }

    private static LockOptions requireOptions(LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        return options;
    }

    // ---- health (FactoryHealth) ----

    private final FactoryHealth health;

    @Override
    public HealthReport health(Duration probeTimeout) {
        return health.check(probeTimeout);
    }

    // ---- for tests in this package ----

    int watchedHolds() {
        return holds.watchdog.watched();
    }

    int liveSubscriptions() {
        return waits.subscriptions();
    }
}
