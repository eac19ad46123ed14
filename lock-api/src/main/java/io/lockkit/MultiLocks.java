package io.lockkit;

import io.lockkit.spi.support.Arguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * {@link DistributedLockFactory#acquireAll}: several locks, all or none, under one wait.
 *
 * <p>Design: the names are taken one by one as ordinary handle holds, in ascending order, each
 * waiting at most what is left of the one wait. Every multi-lock takes its names in that same
 * order, so two of them never hold one name each while waiting for the other's (the cycle of a
 * deadlock). When a member cannot be had in time, or its wait fails, the members taken are
 * released in reverse order before the call returns; a member's abandoned wait leaves the
 * backend's queue as any wait does. The members are plain holds: the watchdog renews them with the
 * factory's other holds (holds taken close together share its round trip), and each reports its
 * loss, which {@link OwnedMultiLockHandle} passes on. Only public API is used, so any factory gets it.
 *
 * <p>Round trips: on a {@link ProviderLockFactory} (blocking calls only; {@link #acquireAllAsync}
 * takes the members one by one) every name is first attempted at once in one provider call
 * ({@link io.lockkit.spi.LockProvider#tryAcquireAll}), and the handle releases its members in
 * one ({@link io.lockkit.spi.LockProvider#releaseAll}): uncontended, a multi-lock costs the
 * backend's batch of each, whatever the number of names.
 */
final class MultiLocks {

    private MultiLocks() {}

    /** See {@link DistributedLockFactory#tryAcquireAll}. */
    static Optional<MultiLockHandle> tryAcquireAll(
            DistributedLockFactory factory, Collection<String> names, LockOptions options) throws InterruptedException {
        List<String> sorted = checked(names, options);
        OwnedMultiLockHandle taken = new OwnedMultiLockHandle(sorted.size());
        String busy = take(factory, sorted, options, taken);
        return busy == null ? Optional.of(taken) : Optional.empty();
    }

    /** See {@link DistributedLockFactory#acquireAll}. */
    static MultiLockHandle acquireAll(DistributedLockFactory factory, Collection<String> names, LockOptions options)
            throws InterruptedException {
        List<String> sorted = checked(names, options);
        OwnedMultiLockHandle taken = new OwnedMultiLockHandle(sorted.size());
        String busy = take(factory, sorted, options, taken);
        if (busy != null) {
            throw new LockNotAcquiredException(busy, options.waitTime().orElse(Duration.ZERO));
        }
        return taken;
    }

    /**
     * See {@link DistributedLockFactory#acquireAllAsync}: the members' asynchronous acquisitions one
     * after another, each started when the one before completed, so no thread waits. Cancelling
     * the returned stage cancels the member being waited for and releases those taken.
     */
    static CompletableFuture<MultiLockHandle> acquireAllAsync(
            DistributedLockFactory factory, Collection<String> names, LockOptions options) {
        List<String> sorted = checked(names, options);
        CompletableFuture<MultiLockHandle> result = new CompletableFuture<>();
        new AsyncTake(factory, sorted, options, result).next(0);
        return result;
    }

    /** The state of one {@link #acquireAllAsync}: the members taken and the acquisition in flight. */
    private static final class AsyncTake {
        private final DistributedLockFactory factory;
        private final List<String> sorted;
        private final LockOptions options;
        private final CompletableFuture<MultiLockHandle> result;
        private final OwnedMultiLockHandle taken;
        private final long start = System.nanoTime();
        private volatile @Nullable CompletableFuture<LockHandle> inFlight;

        AsyncTake(
                DistributedLockFactory factory,
                List<String> sorted,
                LockOptions options,
                CompletableFuture<MultiLockHandle> result) {
            this.factory = factory;
            this.sorted = sorted;
            this.options = options;
            this.result = result;
            this.taken = new OwnedMultiLockHandle(sorted.size());
            var unused = result.whenComplete((handle, failure) -> {
                CompletableFuture<LockHandle> pending = inFlight;
                if (result.isCancelled() && pending != null) {
                    pending.cancel(false);
                }
            });
        }

        /** Starts the acquisition of member {@code i}, or completes the result after the last one. */
        void next(int i) {
            if (i == sorted.size()) {
                if (!result.complete(taken)) {
                    taken.rollBack(null); // cancelled as the last member came in
                }
                return;
            }
            CompletableFuture<LockHandle> member;
            try {
                member = factory.acquireAsync(sorted.get(i), memberOptions(options, options.waitTime(), start))
                        .toCompletableFuture();
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
            inFlight = member;
            var unused = member.whenComplete((handle, failure) -> {
                if (failure != null) {
                    fail(
                            failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                                    ? failure.getCause()
                                    : failure);
                    return;
                }
                taken.add(handle);
                if (result.isDone()) {
                    taken.rollBack(null); // cancelled while this member was taken
                    return;
                }
                next(i + 1);
            });
            if (result.isCancelled()) {
                member.cancel(false);
            }
        }

        private void fail(Throwable failure) {
            try {
                taken.rollBack(failure);
            } finally {
                result.completeExceptionally(failure);
            }
        }
    }

    /**
     * Takes {@code sorted} in order into {@code taken}; returns null when all were taken, else the
     * name that stayed busy (the members taken are released by then).
     */
    private static @Nullable String take(
            DistributedLockFactory factory, List<String> sorted, LockOptions options, OwnedMultiLockHandle taken)
            throws InterruptedException {
        long start = System.nanoTime();
        Optional<Duration> wait = options.waitTime();
        try {
            int from = factory instanceof ProviderLockFactory p && sorted.size() > 1
                    ? takeAtOnce(p, sorted, options, taken)
                    : 0;
            for (String name : sorted.subList(from, sorted.size())) {
                Optional<LockHandle> member = factory.tryAcquire(name, memberOptions(options, wait, start));
                if (member.isEmpty()) {
                    taken.rollBack(null);
                    return name;
                }
                taken.add(member.get());
            }
            return null;
        } catch (InterruptedException | RuntimeException | Error e) {
            taken.rollBack(e);
            throw e;
        }
    }

    /**
     * Attempts every name at once ({@link ProviderLockFactory#tryEach}: one provider call, no
     * wait) and keeps the members won before the first busy one, in name order; those won after it
     * are released, so the ordered waits that follow take the rest in order as before (and keep
     * their deadlock-freedom). Returns the index of the first busy name, or the size when all
     * were won.
     */
    private static int takeAtOnce(
            ProviderLockFactory factory, List<String> sorted, LockOptions options, OwnedMultiLockHandle taken) {
        List<@Nullable LockHandle> won = factory.tryEach(sorted, options);
        int busy = won.indexOf(null);
        int kept = busy < 0 ? won.size() : busy;
        OwnedMultiLockHandle after = new OwnedMultiLockHandle(won.size() - kept);
        for (int i = 0; i < won.size(); i++) {
            LockHandle member = won.get(i);
            if (member != null) {
                (i < kept ? taken : after).add(member);
            }
        }
        after.rollBack(null); // given back together, as a multi-lock's members are
        return kept;
    }

    /** The options of one member: the caller's, waiting at most what is left of the one wait. */
    private static LockOptions memberOptions(LockOptions options, Optional<Duration> wait, long start) {
        if (wait.isEmpty()) {
            return options;
        }
        long left = wait.get().toNanos() - (System.nanoTime() - start);
        return options.toBuilder()
                .waitAtMost(Duration.ofNanos(Math.max(0, left)))
                .build();
    }

    /**
     * The names, checked (each a valid lock name, none twice, at least one) and sorted.
     *
     * @throws IllegalArgumentException naming {@code names} or {@code options}
     */
    static List<String> checked(Collection<String> names, LockOptions options) {
        Arguments.notNull(options, "options");
        Arguments.notNull(names, "names");
        if (names.isEmpty()) {
            throw new IllegalArgumentException("names must not be empty");
        }
        List<String> sorted = new ArrayList<>(names.size());
        Set<String> seen = new HashSet<>();
        int i = 0;
        for (String name : names) {
            try {
                LockNames.check(name);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("names[" + i + "] is not a valid lock name: " + e.getMessage(), e);
            }
            if (!seen.add(name)) {
                throw new IllegalArgumentException(
                        "names must not hold a name twice; '" + LockException.abbreviate(name) + "' is there twice");
            }
            sorted.add(name);
            i++;
        }
        sorted.sort(null);
        return sorted;
    }
}
