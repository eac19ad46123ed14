package io.lockkit;

import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The entry point: hands out locks by name over one {@link LockProvider}, and owns that provider.
 * Thread-safe; create one per application and close it at shutdown, which releases what it
 * holds and fails pending waits promptly.
 *
 * <pre>{@code
 * try (DistributedLockFactory locks = DistributedLockFactory.create(provider);
 *      LockHandle hold = locks.acquire("order:42", LockOptions.waitAtMost(Duration.ofSeconds(5)))) {
 *     ship(order, hold.fencingToken());
 * }
 * }</pre>
 *
 * <h2 id="names">Lock names</h2>
 *
 * A lock name is a string of 1 to {@value #MAX_NAME_LENGTH} chars that is not blank and holds
 * neither control characters (NUL, line breaks…) nor unpaired surrogates; anything else is refused
 * with an {@link IllegalArgumentException} naming the argument. A name is a sequence of Unicode
 * code points, and every backend compares names exactly, code point by code point: no Unicode
 * normalization, no case folding, no trimming, no collation. So {@code "é"} written as U+00E9 and as
 * {@code "e"} followed by U+0301 are two locks, as are {@code "Order"} and {@code "order"}, and
 * {@code "a"} and {@code "a "}. If the names your application builds can arrive in more than one
 * form (user input, names from several systems), normalize them before locking, for instance with
 * {@link java.text.Normalizer}. A listing's prefix ({@link LockOperations#locks}) matches names the
 * same way, and listed names come back exactly as they were locked.
 *
 * <p>The operator's tools (inspect, list and force-release locks, check health) are on
 * {@link #operations()}.
 */
public interface DistributedLockFactory extends AutoCloseable {

    /**
     * The longest lock name accepted, in chars (UTF-16 code units): 8,192, which is up to 24 KiB in
     * UTF-8. Every backend keeps names of this length whole.
     */
    int MAX_NAME_LENGTH = 8192;

    /** A factory over {@code provider} with default settings. */
    static DistributedLockFactory create(LockProvider provider) {
        return builder(provider).build();
    }

    /** A builder for a factory over {@code provider}. */
    static Builder builder(LockProvider provider) {
        return new Builder(provider);
    }

    /**
     * The lock of this name (see <a href="#names">lock names</a>), owned by whichever thread takes it.
     *
     * @throws IllegalArgumentException when {@code name} is not a valid lock name
     */
    DistributedLock getLock(String name);

    /** The fair lock of {@code name}: a {@link #getLock} whose waiters, of every client, are served in arrival order. */
    DistributedLock getFairLock(String name);

    /** The read/write lock of {@code name}; its write lock is {@link #getLock}'s hold of the name. */
    DistributedReadWriteLock getReadWriteLock(String name);

    /** The semaphore of {@code name} with {@code capacity} leased permits ({@code IllegalArgumentException} below 1). */
    DistributedSemaphore getSemaphore(String name, int capacity);

    /** {@link #getSemaphore} whose waiters are served in arrival order. */
    DistributedSemaphore getFairSemaphore(String name, int capacity);

    /**
     * Takes the lock for a new handle, waiting as {@code options} say.
     *
     * @throws LockNotAcquiredException when the wait ran out
     * @throws InterruptedException when the waiting thread was interrupted
     */
    LockHandle acquire(String name, LockOptions options) throws InterruptedException;

    /** Takes the lock for a new handle with {@link #defaultOptions()}. */
    default LockHandle acquire(String name) throws InterruptedException {
        return acquire(name, defaultOptions());
    }

    /**
     * Like {@link #acquire(String, LockOptions)}, but a lock still busy after the wait is an empty
     * result rather than an exception.
     */
    Optional<LockHandle> tryAcquire(String name, LockOptions options) throws InterruptedException;

    /** Takes the lock for a new handle only if it is free now. */
    Optional<LockHandle> tryAcquire(String name);

    /**
     * Takes the lock for a new handle without blocking the calling thread, waiting as
     * {@code options} say: the returned stage completes with the handle, or exceptionally with
     * {@link LockNotAcquiredException} when the wait ran out, or with the {@link LockException}
     * (such as {@link BackendUnavailableException}) that ended it. No thread waits meanwhile: the
     * wait is woken by the backend's release notifications and the provider's retry hints, as a
     * blocking wait is, and tries the lock on the factory's executor for asynchronous acquisitions
     * ({@link Builder#asyncExecutor}), never on the calling thread. The stage completes on a thread
     * of that executor, so dependent actions that block delay other acquisitions: give such actions
     * an executor of your own ({@code thenAcceptAsync(action, executor)}).
     *
     * <p>Cancelling the stage ({@code toCompletableFuture().cancel(false)}) abandons the wait as an
     * interrupt abandons a blocking one: the lock is not taken, or, when it was won meanwhile, it is
     * released. The handle is the one {@link #acquire(String, LockOptions)} returns: owned by the
     * handle, not a thread, so any thread may release it.
     *
     * <pre>{@code
     * locks.acquireAsync("order:42", LockOptions.waitAtMost(Duration.ofSeconds(5)))
     *         .thenAcceptAsync(hold -> {
     *             try (hold) {
     *                 ship(order, hold.fencingToken());
     *             }
     *         }, workers);
     * }</pre>
     *
     * @throws IllegalArgumentException when {@code name} is not a valid lock name, or {@code options}
     *         is null or does not fit the factory's defaults
     * @throws UnsupportedOperationException when {@code options} set a lease and the provider has no
     *         explicit leases, or this implementation cannot acquire asynchronously (the default; the
     *         factories {@link #builder} builds can)
     */
    default CompletionStage<LockHandle> acquireAsync(String name, LockOptions options) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot acquire asynchronously");
    }

    /** {@link #acquireAsync(String, LockOptions)} with {@link #defaultOptions()}. */
    default CompletionStage<LockHandle> acquireAsync(String name) {
        return acquireAsync(name, defaultOptions());
    }

    /**
     * Like {@link #acquireAsync(String, LockOptions)}, but a lock still busy after the wait completes
     * the stage with an empty result rather than exceptionally.
     *
     * @throws IllegalArgumentException as {@link #acquireAsync(String, LockOptions)}
     * @throws UnsupportedOperationException as {@link #acquireAsync(String, LockOptions)}
     */
    default CompletionStage<Optional<LockHandle>> tryAcquireAsync(String name, LockOptions options) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot acquire asynchronously");
    }

    /** {@link #tryAcquireAsync(String, LockOptions)} only if the lock is free now, as {@link #tryAcquire(String)}. */
    default CompletionStage<Optional<LockHandle>> tryAcquireAsync(String name) {
        return tryAcquireAsync(name, defaultOptions().toBuilder().noWait().build());
    }

    /**
     * Runs {@code action} while holding the lock and returns its result; the lock is released
     * afterwards whatever happens.
     *
     * @throws LockNotAcquiredException when the wait ran out
     * @throws LockLostException when the hold was lost while {@code action} ran
     */
    @SuppressWarnings("try") // the handle is only there to be closed
    default <T extends @Nullable Object, X extends Throwable> T callWithLock(
            String name, LockOptions options, LockedCallable<T, X> action) throws X, InterruptedException {
        Objects.requireNonNull(action, "action");
        try (LockHandle ignored = acquire(name, options)) {
            return action.call();
        }
    }

    /** Runs {@code action} while holding the lock; see {@link #callWithLock}. */
    default void runWithLock(String name, LockOptions options, Runnable action) throws InterruptedException {
        Objects.requireNonNull(action, "action");
        callWithLock(name, options, () -> {
            action.run();
            return Boolean.TRUE; // a result nobody reads
        });
    }

    /**
     * Takes every lock of {@code names} for one new {@link MultiLockHandle}, all or none, waiting
     * as {@code options} say: the wait time is one budget for all of them, and every member gets
     * the options' lease. The names are taken one by one in ascending order, so two multi-locks
     * over the same names, passed in any order, never deadlock; a plain lock taken in another
     * order can still meet one in a cycle, which the wait time ends. When a member is still busy
     * at the end of the wait, or the wait fails, the members taken are released before this
     * returns: nothing stays held or queued. Each member is an ordinary hold with its own fencing
     * token (the same as {@link #acquire} gives), renewed by the watchdog with the factory's other
     * holds; the handle reports the loss of any member. On Redis Cluster the names may live in
     * different slots: each member is its own key. Uncontended, every name is attempted in one
     * provider call and {@link MultiLockHandle#release()} releases them in one (on Redis one round
     * trip each, one per node on a Cluster); from the first busy name on, the names are waited for
     * one by one as above.
     *
     * @throws IllegalArgumentException when {@code names} is null, empty, holds an invalid lock
     *         name or a name twice, or {@code options} is null
     * @throws LockNotAcquiredException when a member was still busy when the wait ran out (it
     *         names that member)
     * @throws InterruptedException when the waiting thread was interrupted
     * @throws LockException when the factory is closed or a backend call failed
     */
    default MultiLockHandle acquireAll(Collection<String> names, LockOptions options) throws InterruptedException {
        return MultiLocks.acquireAll(this, names, options);
    }

    /** Takes every lock of {@code names} with {@link #defaultOptions()}; see {@link #acquireAll(Collection, LockOptions)}. */
    default MultiLockHandle acquireAll(Collection<String> names) throws InterruptedException {
        return acquireAll(names, defaultOptions());
    }

    /**
     * {@link #acquireAll(Collection, LockOptions)} without blocking the calling thread: the members
     * are taken one after another as {@link #acquireAsync} takes a lock. The stage fails with
     * {@link LockNotAcquiredException} naming the member still busy, and cancelling it releases
     * the members taken; either way nothing stays held or queued.
     *
     * @throws IllegalArgumentException as {@link #acquireAll(Collection, LockOptions)} does
     */
    default CompletionStage<MultiLockHandle> acquireAllAsync(Collection<String> names, LockOptions options) {
        return MultiLocks.acquireAllAsync(this, names, options);
    }

    /**
     * Like {@link #acquireAll(Collection, LockOptions)}, but a member still busy after the wait is
     * an empty result rather than an exception (nothing is held then).
     */
    default Optional<MultiLockHandle> tryAcquireAll(Collection<String> names, LockOptions options)
            throws InterruptedException {
        return MultiLocks.tryAcquireAll(this, names, options);
    }

    /**
     * The operator's view of this factory: {@link LockOperations#inspect inspect}, {@link
     * LockOperations#locks list} and {@link LockOperations#forceRelease force-release} locks
     * whoever holds them, and check its {@link LockOperations#health health}. The same view on every
     * call. Thread-safe.
     *
     * <p>Abstract rather than a default that throws: a factory that wraps another must forward it,
     * and the compiler says so, where a default would compile and fail on an operator's first call.
     * A factory without operator tools returns a view whose methods throw
     * {@link UnsupportedOperationException}, as {@link LockOperations} allows.
     */
    LockOperations operations();

    /**
     * A leadership of {@code name} for this instance, not yet campaigning: {@link Leadership#start()}
     * starts it, {@link Leadership#close()} ends it (closing the factory closes it too). Every
     * instance that campaigns for the same name over the same backend competes; see
     * {@link Leadership} for the guarantee. The name is a lock name: do not lock it otherwise.
     * Thread-safe.
     *
     * @throws IllegalArgumentException when {@code name} is not a valid lock name, {@code options}
     *         is null, or its durations do not fit together with the factory's default lease
     * @throws IllegalStateException when a leadership of {@code name} is open on this factory already
     * @throws UnsupportedOperationException when the provider has no
     *         {@linkplain io.lockkit.spi.LockProvider.Capability#FENCING_TOKENS fencing tokens} (a
     *         term is one), or this implementation has no leaderships (the default; the factories
     *         {@link #builder} builds have)
     * @throws LockException when the factory is closed
     */
    default Leadership leadership(String name, LeadershipOptions options) {
        throw new UnsupportedOperationException(getClass().getName() + " has no leaderships");
    }

    /** The options {@link DistributedLock#lock()} and {@link #acquire(String)} use. */
    LockOptions defaultOptions();

    /**
     * This factory's client id: the part before the first {@code ':'} of the owner id of every hold
     * it makes, as {@link LockOperations#inspect}, {@link LockOperations#locks}
     * ({@link LockInfo#clientId()}) and the operator CLI show it. By default
     * {@code <host>/<pid>/<suffix>}, e.g. {@code orders-7d9f8c-x2k4p/1/k3x9q0}: the host name (a
     * container's or pod's {@code HOSTNAME}), the process id, and a suffix that differs per factory
     * of the JVM and per process start; {@link Builder#clientId} sets another.
     * Logged at INFO when the factory starts.
     *
     * @throws UnsupportedOperationException when this implementation has none (the default; the
     *         factories {@link #builder} builds have one)
     */
    default String clientId() {
        throw new UnsupportedOperationException(getClass().getName() + " has no client id");
    }

    /**
     * Releases what this factory holds, fails pending waits and closes the provider; idempotent.
     * Same as {@link #close(Duration) close(Duration.ZERO)}.
     */
    @Override
    void close();

    /**
     * Closes after letting the work in flight end, for undeploy and shutdown: refuses new
     * acquisitions at once ({@link LockException}) and fails pending waits, but lets holders keep
     * their locks (renewed, and taken again reentrantly) for up to {@code drainTime}; then
     * releases what is still held and reports it to each holder as lost ({@link LockHandle#lost()}
     * completes, the loss listener is called, and a later unlock or release throws
     * {@link LockLostException}). Returns once the factory is closed; idempotent.
     *
     * @throws IllegalArgumentException when {@code drainTime} is null or negative
     */
    default void close(Duration drainTime) {
        if (drainTime == null || drainTime.isNegative()) {
            throw new IllegalArgumentException("drainTime must be zero or positive; was " + drainTime);
        }
        close();
    }

    /** Configures a {@link DistributedLockFactory}. Not thread-safe. */
    final class Builder {
        /** How long a wake-up subscription outlives its last waiter, so bursts do not resubscribe. */
        public static final Duration DEFAULT_SUBSCRIPTION_LINGER = Duration.ofSeconds(2);

        /** What this builder has set so far. */
        final FactorySettings settings;

        private Builder(LockProvider provider) {
            this.settings = new FactorySettings(require(provider, "provider"));
        }

        /** The monotonic clock for lease deadlines (default {@link Ticker#system()}). */
        public Builder ticker(Ticker ticker) {
            settings.ticker = require(ticker, "ticker");
            return this;
        }

        /**
         * The wall clock for the times this factory reports to people, such as
         * {@link Term#electedAt()} (default {@link java.time.Clock#systemUTC()}); leases never read it.
         */
        public Builder clock(java.time.Clock clock) {
            settings.clock = require(clock, "clock");
            return this;
        }

        /**
         * A scheduler for renewals and lease deadlines, owned by the caller (not shut down on
         * close). Give it at least two threads: a renewal waiting on an unresponsive backend
         * occupies one for up to the provider's timeout, and with a single thread loss reports
         * wait behind it. By default the factory runs two daemon threads of its own.
         */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            settings.scheduler = require(scheduler, "scheduler");
            return this;
        }

        /** Where the factory's own scheduler threads come from (e.g. a container-managed factory). */
        public Builder threadFactory(ThreadFactory threadFactory) {
            settings.threadFactory = require(threadFactory, "threadFactory");
            return this;
        }

        /**
         * Where asynchronous acquisitions ({@link DistributedLockFactory#acquireAsync}) call the
         * provider and complete their stages, owned by the caller (not shut down on close). Its tasks
         * block for a backend round trip each, so never give it an event loop, nor an executor that
         * runs tasks on the submitting thread (a wake-up would then call the backend on the
         * provider's notification thread). By default the factory runs two daemon threads of its
         * own, made when an asynchronous acquisition needs them (from the {@link #threadFactory},
         * when one is set, called on a scheduler thread) and gone after a minute without work.
         */
        public Builder asyncExecutor(Executor asyncExecutor) {
            settings.asyncExecutor = require(asyncExecutor, "asyncExecutor");
            return this;
        }

        /** Options for {@link DistributedLock#lock()}, {@link #build()}'s watchdog, and {@code acquire(name)}. */
        public Builder defaultOptions(LockOptions defaultOptions) {
            settings.defaultOptions = require(defaultOptions, "defaultOptions");
            return this;
        }

        /** Called (on a scheduler thread) for every hold of this factory that is lost. */
        public Builder onLockLost(Consumer<LockLostException> lossListener) {
            settings.lossListener = require(lossListener, "lossListener");
            return this;
        }

        /**
         * Adds an observer of this factory's acquisitions, releases, losses and renewals (see
         * {@link LockObserver} for the threads it is called on); each call adds one more, called
         * in the order added. None by default, which costs nothing.
         */
        public Builder observer(LockObserver observer) {
            settings.observers.add(require(observer, "observer"));
            return this;
        }

        /**
         * The client id instead of the default {@code <host>/<pid>/<suffix>} (see
         * {@link DistributedLockFactory#clientId()}), e.g. an instance name an orchestrator gives.
         * It must differ from the client id of every other factory that uses the same backend at the
         * same time, in this process or another, and from that of an earlier process whose locks may
         * still be held: the backend takes holds of the same client id and thread for the same owner,
         * so two factories sharing one would let each other's threads in reentrantly. A fixed value
         * shared by the instances of an application breaks mutual exclusion between them.
         *
         * @throws IllegalArgumentException when {@code clientId} is null, empty, longer than 64
         *         characters, or holds a character other than {@code A-Z a-z 0-9 . _ - / @ +} (owner
         *         ids are {@code <client id>:<owner>}, stored by the backends, and never hold spaces)
         */
        public Builder clientId(String clientId) {
            settings.clientId = ClientIds.check(clientId);
            return this;
        }

        /** How long a wake-up subscription is kept after its last waiter leaves (zero: drop at once). */
        public Builder subscriptionLinger(Duration linger) {
            require(linger, "subscriptionLinger");
            if (linger.isNegative() || linger.compareTo(LockOptions.MAX_DURATION) > 0) {
                throw new IllegalArgumentException(
                        "subscriptionLinger must be between zero and " + LockOptions.MAX_DURATION + ", was " + linger);
            }
            settings.subscriptionLinger = linger;
            return this;
        }

        /**
         * Builds the factory.
         *
         * @throws IllegalArgumentException when both a scheduler and a thread factory were set: the
         *         thread factory only makes the factory's own scheduler threads, so one would be ignored
         */
        public DistributedLockFactory build() {
            if (settings.scheduler != null && settings.threadFactory != null) {
                throw new IllegalArgumentException("threadFactory and scheduler cannot both be set: the threadFactory"
                        + " makes the factory's own scheduler threads, which a caller's scheduler replaces");
            }
            return new ProviderLockFactory(settings);
        }

        private static <T> T require(T value, String argument) {
            if (value == null) {
                throw new IllegalArgumentException(argument + " must not be null");
            }
            return value;
        }
    }
}
