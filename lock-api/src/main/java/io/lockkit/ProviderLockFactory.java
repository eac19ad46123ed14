package io.lockkit;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.Arguments;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The core behind {@link DistributedLockFactory}: assembles the engine's objects and hands each
 * call to the one that does it. Thread-safe.
 *
 * <p>Design: {@link Acquirer} turns a provider's single attempts into waits (each a {@link Wait}
 * or {@link AsyncWait}); {@link Holds} keeps this client's holds, renews and watches them through a
 * {@link LeaseWatchdog}, releases them and reports their losses; {@link ThreadHolds} keeps what each
 * thread holds; {@link OperatorCalls} is the operator's view; {@link Leaderships} runs leaderships;
 * {@link EngineThreads} owns the executors and {@link Gate} the open/closing/closed state. Each gets
 * what it uses in its constructor and none reads this class. ARCHITECTURE.md draws the map.
 *
 * <p>Owners: a thread owns its holds as {@code <clientId>:t<threadId>}, a handle as
 * {@code <clientId>:h<sequence>} ({@link Owners}), so two factories (or two processes) never
 * share an owner.
 */
final class ProviderLockFactory implements DistributedLockFactory {

    private static final System.Logger LOG = System.getLogger(ProviderLockFactory.class.getName());
    /** How long close() gives woken waiters to leave the backend's queues. */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    static {
        ClosePath.load(); // before an application server may stop loading classes: see ClosePath
    }

    private final LockProvider provider;
    private final Ticker ticker;
    private final LockOptions defaults;
    private final Owners owners;
    private final EngineThreads threads;
    private final Gate gate;
    private final ProviderCalls calls;
    /** The rooms where this client's waiters are woken. */
    private final WaitQueues waits;
    /** Threads inside a wait, from joining a room until they have left the backend's queue. */
    private final InFlight inFlight = new InFlight();
    /** Abandons that failed while the backend was unreachable, sent again when it answers. */
    private final Abandons abandons;
    /** This client's holds, the watchdog that keeps them, and their releases and losses. */
    private final Holds holds;

    private final Acquirer acquirer;
    private final ThreadHolds threadHolds;
    /** The operator's view, with the health check: made once, handed out by operations(). */
    private final OperatorCalls operations;
    /** The open leaderships of this factory, one per name. */
    private final Leaderships leaderships;

    ProviderLockFactory(FactorySettings b) {
        this.provider = b.provider;
        this.ticker = b.ticker;
        this.defaults = b.defaultOptions;
        this.owners = new Owners(b.clientId != null ? b.clientId : ClientIds.next());
        String clientId = owners.clientId();
        provider.useClientId(clientId); // before any other call: the backend may show it to operators
        this.threads = new EngineThreads(b.scheduler, b.asyncExecutor, b.threadFactory, clientId);
        ScheduledExecutorService scheduler = threads.scheduler();
        Events events = new Events(ticker, b.observers);
        LiveHolds live = new LiveHolds();
        this.gate = new Gate(live);
        Unsettled unsettled = new Unsettled(owners);
        this.abandons = new Abandons(provider, scheduler, owners::isThreadOwner);
        this.calls = new ProviderCalls(provider, gate, events, unsettled, abandons);
        long linger = b.subscriptionLinger.toNanos();
        this.waits = new WaitQueues(provider, scheduler, linger, owners.handleOwnerPrefix());
        this.holds = new Holds(calls, ticker, gate, live, unsettled, events, waits, b.lossListener, scheduler);
        WaitServices waiting = new WaitServices(ticker, calls, gate, holds, waits, inFlight, abandons, events);
        this.acquirer = new Acquirer(waiting, defaults, owners, threads);
        this.threadHolds = new ThreadHolds(owners, acquirer, holds, events, ticker, defaults);
        this.leaderships = new Leaderships(
                b.threadFactory,
                new LeadershipServices(gate, calls, defaults, acquirer, holds, events, ticker, b.clock, scheduler));
        FactoryHealth health = new FactoryHealth(
                provider,
                ticker,
                clientId,
                holds.watchdog(),
                scheduler,
                events.losses,
                defaults,
                b.threadFactory,
                gate::isClosed,
                holds::liveCount,
                leaderships::leading);
        this.operations = new OperatorCalls(calls, gate, holds, waits, health);
        LOG.log(
                System.Logger.Level.INFO,
                "lockkit: DistributedLockFactory started as client {0} over {1}",
                clientId,
                provider);
    }

    // ---- locking ----

    @Override
    public DistributedLock getLock(String name) {
        return new ThreadOwnedLock(threadHolds, operations, calls, ticker, LockNames.check(name), ThreadSide.WRITE);
    }

    @Override
    public DistributedLock getFairLock(String name) {
        return new ThreadOwnedLock(threadHolds, operations, calls, ticker, LockNames.check(name), ThreadSide.FAIR);
    }

    @Override
    public DistributedReadWriteLock getReadWriteLock(String name) {
        LockNames.check(name);
        return new ThreadOwnedReadWriteLock(
                name,
                new ThreadOwnedLock(threadHolds, operations, calls, ticker, name, ThreadSide.READ),
                new ThreadOwnedLock(threadHolds, operations, calls, ticker, name, ThreadSide.WRITE),
                acquirer);
    }

    @Override
    public DistributedSemaphore getSemaphore(String name, int capacity) {
        return new HandleSemaphore(acquirer, operations, defaults, LockNames.check(name), capacity, false);
    }

    @Override
    public DistributedSemaphore getFairSemaphore(String name, int capacity) {
        return new HandleSemaphore(acquirer, operations, defaults, LockNames.check(name), capacity, true);
    }

    @Override
    public LockHandle acquire(String name, LockOptions options) throws InterruptedException {
        LockNames.check(name);
        return acquirer.acquire(name, requireOptions(options));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name, LockOptions options) throws InterruptedException {
        LockNames.check(name);
        return acquirer.tryAcquire(name, requireOptions(options));
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
    public CompletionStage<LockHandle> acquireAsync(String name, LockOptions options) {
        LockNames.check(name);
        LockOptions o = requireOptions(options);
        Duration waited = o.waitTime().orElse(Duration.ZERO);
        return acquirer.startAsync(
                name, o, handle -> handle.orElseThrow(() -> new LockNotAcquiredException(name, waited)));
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryAcquireAsync(String name, LockOptions options) {
        LockNames.check(name);
        return acquirer.startAsync(name, requireOptions(options), handle -> handle);
    }

    /** A multi-lock's attempt at every name at once ({@link Acquirer#tryEach}); per name its handle, or null when busy. */
    java.util.List<@Nullable LockHandle> tryEach(java.util.List<String> names, LockOptions options) {
        return acquirer.tryEach(names, requireOptions(options));
    }

    private static LockOptions requireOptions(LockOptions options) {
        return Arguments.notNull(options, "options");
    }

    @Override
    public LockOptions defaultOptions() {
        return defaults;
    }

    @Override
    public String clientId() {
        return owners.clientId();
    }

    // ---- operator tools, leadership ----

    @Override
    public LockOperations operations() {
        return operations;
    }

    @Override
    public Leadership leadership(String name, LeadershipOptions options) {
        return leaderships.open(name, options);
    }

    // ---- lifecycle ----

    @Override
    public void close() {
        close(Duration.ZERO);
    }

    @Override
    public void close(Duration drainTime) {
        if (drainTime == null || drainTime.isNegative()) {
            throw new IllegalArgumentException("drainTime must be zero or positive; was " + drainTime);
        }
        if (!gate.close()) {
            return;
        }
        // Leaders step down first: their onRevoked runs before their locks go.
        leaderships.closeAll();
        gate.draining(!drainTime.isZero());
        waits.close();
        // Let the woken waiters leave the backend's queues while the provider is still open.
        inFlight.awaitNone(CLOSE_WAIT_NANOS);
        if (!drainTime.isZero()) {
            holds.drain(drainTime);
        }
        gate.draining(false);
        holds.watchdog().stop();
        holds.releaseOnClose(drainTime);
        threads.shutdown();
        provider.close();
    }

    @Override
    public String toString() {
        return "DistributedLockFactory[client " + owners.clientId() + ", " + provider + "]";
    }

    // ---- for tests in this package ----

    String threadOwner() {
        return owners.threadOwner();
    }

    int watchedHolds() {
        return holds.watchdog().watched();
    }

    int liveSubscriptions() {
        return waits.subscriptions();
    }

    int waitsInFlight() {
        return inFlight.count();
    }

    int liveHolds() {
        return holds.liveCount();
    }

    int pendingAbandons() {
        return abandons.pending();
    }
}
