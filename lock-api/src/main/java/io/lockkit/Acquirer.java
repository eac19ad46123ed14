package io.lockkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Acquisitions of one {@link ProviderLockFactory}: checks their options, runs a {@link Wait} on the
 * caller's thread or an {@link AsyncWait} on the asynchronous executor, and turns a handle's grant
 * into a registered hold and its {@link OwnedLockHandle}. Owns no thread; thread-safe.
 */
final class Acquirer {

    private final WaitServices services;
    private final LockOptions defaults;
    private final Owners owners;
    private final ScheduledExecutorService timers;
    private final Executor asyncExecutor;

    Acquirer(WaitServices services, LockOptions defaults, Owners owners, EngineThreads threads) {
        this.services = services;
        this.defaults = defaults;
        this.owners = owners;
        this.timers = threads.scheduler();
        this.asyncExecutor = threads.asyncExecutor();
    }

    /**
     * A handle's acquisition that must succeed (see {@link DistributedLockFactory#acquire(String, LockOptions)}).
     *
     * @throws LockNotAcquiredException when the wait ran out
     */
    LockHandle acquire(String name, LockOptions options) throws InterruptedException {
        return tryAcquire(name, options)
                .orElseThrow(() ->
                        new LockNotAcquiredException(name, options.waitTime().orElse(Duration.ZERO)));
    }

    /** A handle's acquisition (see {@link DistributedLockFactory#tryAcquire(String, LockOptions)}). */
    Optional<LockHandle> tryAcquire(String name, LockOptions options) throws InterruptedException {
        return tryAcquire(name, options, Claim.EXCLUSIVE);
    }

    /** A handle's acquisition of {@code claim} of the name (a semaphore's permits, a fair lock). */
    Optional<LockHandle> tryAcquire(String name, LockOptions options, Claim claim) throws InterruptedException {
        ResolvedOptions o = ResolvedOptions.of(options, defaults).withClaim(claim);
        String owner = owners.nextHandleOwner();
        long start = services.ticker().nanoTime();
        Grant g = take(name, owner, o, true, start, 0);
        if (g == null) {
            return Optional.empty();
        }
        return Optional.of(handleFor(name, owner, g, o, start));
    }

    /**
     * A multi-lock's first step: an attempt that does not wait at each of {@code names}, all in one
     * provider call ({@code ProviderCalls#attemptAll}), each for a handle owner of its own. Each
     * name won becomes a registered hold and its handle as {@link #tryAcquire} makes it (the
     * gate, "lost already?", the events); a busy name is left to the caller's wait, which reports
     * it. When the call fails or the factory closes, what was won is given back before this throws.
     *
     * @return per name, in order: its handle, or null when it was busy
     */
    List<@Nullable LockHandle> tryEach(List<String> names, LockOptions options) {
        ResolvedOptions o = ResolvedOptions.of(options, defaults).withClaim(Claim.EXCLUSIVE);
        check(o);
        List<LockRequest> requests = new ArrayList<>(names.size());
        for (String name : names) {
            String owner = owners.nextHandleOwner();
            services.gate().ensureOpen(name, owner);
            requests.add(new LockRequest(name, owner, o.lease(), Duration.ZERO, 0, o.claim()));
        }
        long start = services.ticker().nanoTime();
        List<Acquisition> answers = services.calls().attemptAll(requests);
        List<@Nullable LockHandle> handles = new ArrayList<>(names.size());
        try {
            for (int i = 0; i < requests.size(); i++) {
                LockRequest r = requests.get(i);
                Acquisition a = answers.get(i);
                Grant g = a.isAcquired() ? unlessLate(r, a.fencingToken(), start, o) : null;
                handles.add(g == null ? null : handleFor(r.name(), r.owner(), g, o, start));
            }
        } catch (RuntimeException | Error e) {
            giveBack(requests, answers, handles, e);
            throw e;
        }
        return handles;
    }

    /**
     * The grant of a hold won by a batch sent at {@code sent}, checked as a single attempt's is
     * (see {@link Wait}, "Lost already?") and let through the gate; null when the backend no
     * longer has it or no renewal came back within its lease (its lease then lapses).
     */
    private @Nullable Grant unlessLate(LockRequest r, long token, long sent, ResolvedOptions o) {
        Grant g = new Grant(token, sent);
        if (services.ticker().nanoTime() - sent >= o.lease().toNanos()) {
            long renewal = services.ticker().nanoTime();
            if (!services.holds().confirm(r.name(), r.owner(), o.lease())) {
                return null;
            }
            if (services.ticker().nanoTime() - renewal >= o.lease().toNanos()) {
                services.holds().unsettle(r.name(), r.owner());
                return null;
            }
            g = new Grant(token, renewal);
        }
        return services.holds().granted(r.name(), r.owner(), g);
    }

    /**
     * After {@link #tryEach} failed at member {@code handles.size()}: closes the handles made and
     * releases the holds won after the failing one; failures are added to {@code cause}.
     */
    private void giveBack(
            List<LockRequest> requests,
            List<Acquisition> answers,
            List<@Nullable LockHandle> handles,
            Throwable cause) {
        for (int j = handles.size() + 1; j < requests.size(); j++) {
            if (answers.get(j).isAcquired()) {
                services.holds()
                        .releaseQuietly(requests.get(j).name(), requests.get(j).owner());
            }
        }
        for (LockHandle h : handles) {
            try {
                if (h != null) {
                    h.close();
                }
            } catch (RuntimeException e) {
                cause.addSuppressed(e);
            }
        }
    }

    /**
     * Waits for the lock as {@code options} say (see {@link Wait}).
     *
     * @param start when the call started, on the ticker (the wait runs from here)
     * @param heldToken the token of the owner's hold of the name this client still counts on, or 0
     * @return the grant, or null when the wait ran out
     */
    @Nullable
    Grant take(String name, String owner, ResolvedOptions options, boolean interruptible, long start, long heldToken)
            throws InterruptedException {
        services.gate().ensureOpen(name, owner);
        check(options);
        return new Wait(services, name, owner, options, interruptible, start, heldToken).run();
    }

    /**
     * Starts an {@link AsyncWait}: checks the options as {@link #take} does (synchronously: bad input
     * throws), and a closed factory fails the stage rather than the call.
     */
    <T> CompletionStage<T> startAsync(String name, LockOptions options, Function<Optional<LockHandle>, T> result) {
        return startAsync(name, options, Claim.EXCLUSIVE, result);
    }

    /** {@link #startAsync(String, LockOptions, Function)} for {@code claim} of the name. */
    <T> CompletionStage<T> startAsync(
            String name, LockOptions options, Claim claim, Function<Optional<LockHandle>, T> result) {
        ResolvedOptions o = ResolvedOptions.of(options, defaults).withClaim(claim);
        check(o);
        String owner = owners.nextHandleOwner();
        long start = services.ticker().nanoTime();
        try {
            services.gate().ensureOpen(name, owner);
        } catch (LockException e) {
            return CompletableFuture.failedFuture(e);
        }
        Function<Grant, LockHandle> handles = g -> handleFor(name, owner, g, o, start);
        return new AsyncWait<>(services, timers, name, owner, o, start, asyncExecutor, handles, result).start();
    }

    private void check(ResolvedOptions options) {
        if (!options.watchdog()) {
            services.calls().require(Capability.EXPLICIT_LEASE, "an explicit lease");
        }
        options.checkRenewalInterval();
        if (!options.claim().exclusive()) {
            services.calls()
                    .require(
                            Capability.SHARED_HOLDS,
                            "a shared hold (a read lock or a semaphore: capability SHARED_HOLDS)");
        }
        if (options.claim().fair()) {
            services.calls().require(Capability.FAIR_QUEUE, "a fair queue (capability FAIR_QUEUE)");
        }
    }

    /** The handle of a hold won for a handle owner: registered, watched, reported. */
    private LockHandle handleFor(String name, String owner, Grant g, ResolvedOptions o, long start) {
        Hold h = services.holds().register(name, owner, g, o);
        services.events().acquired(name, o.claim(), start, g.token(), false);
        return new OwnedLockHandle(services.calls(), services.ticker(), services.holds(), h);
    }
}
