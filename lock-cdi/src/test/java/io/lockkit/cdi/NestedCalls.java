package io.lockkit.cdi;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Outer {@code @Locked} methods calling {@link Inner}'s. */
@ApplicationScoped
public class NestedCalls {

    @Inject
    Inner inner;

    /** Returns [outer hold count, outer token, inner hold count, inner token]. */
    @Locked("account:{id}")
    public List<Long> sameName(long id) {
        LockHandle outer = CurrentLock.handle().orElseThrow();
        long[] seen = inner.sameNameTryOnce(id);
        return List.of((long) outer.holdCount(), outer.fencingToken(), seen[0], seen[1], (long) outer.holdCount());
    }

    /** Returns the names of the holds seen inside the inner call. */
    @Locked("ledger")
    public List<String> otherName() {
        return inner.otherName();
    }

    /** Calls an asynchronous method of the same lock and returns its stage while it runs on. */
    @Locked("job")
    public CompletableFuture<String> asyncInside(CompletableFuture<String> work) {
        return inner.asyncTryOnce(work);
    }

    @ApplicationScoped
    public static class Inner {

        @Inject
        DistributedLockFactory locks;

        /** The calling thread's hold count of the lock, as DistributedLock sees it. */
        @Locked(value = "account:{id}", waitTime = 0)
        public int threadHoldCount(long id) {
            return locks.getLock("account:" + id).getHoldCount();
        }

        @Locked(value = "account:{id}", waitTime = 0)
        public long[] sameNameTryOnce(long id) {
            LockHandle h = CurrentLock.handle().orElseThrow();
            return new long[] {h.holdCount(), h.fencingToken()};
        }

        @Locked(value = "journal", waitTime = 0)
        public List<String> otherName() {
            return List.of(CurrentLock.handle().orElseThrow().name());
        }

        @Locked(value = "job", waitTime = 0)
        public CompletableFuture<String> asyncTryOnce(CompletableFuture<String> work) {
            return work;
        }
    }
}
