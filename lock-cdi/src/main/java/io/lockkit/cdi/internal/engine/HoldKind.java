package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.DistributedReadWriteLock;
import io.lockkit.DistributedSemaphore;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What a declaration holds of its name: the exclusive lock (plain {@code @Locked}, {@code WRITE}),
 * the read side of the name's read/write lock, or permits of the name's semaphore. The one place the
 * calls ({@link SynchronousCalls}, {@link StageCall}, {@link AdaptedCall}) reach the factory through;
 * immutable.
 */
// Design notes.
// - Nesting: HeldLocks and the transaction's holds record which kind each hold is, so a READ call
//   inside an exclusive one joins the exclusive hold (a handle's read hold would wait for the
//   handle's own write hold: handles do not downgrade), an exclusive call inside a READ one is an
//   upgrade, refused at once, and permits join permits of the same name only.
// - The transaction's holds are found by key: the exclusive one under the bare name, as
//   TransactionLocks keeps it, the others under the name, a control character (which no lock name
//   holds: the API refuses them) and the kind, so no lock name can be mistaken for another's key.
public sealed interface HoldKind {

    /** Between a name and its kind in {@link #transactionKey}: a control character, which no lock name holds. */
    String KEY_SEPARATOR = "\u001f";

    /** What a running call's hold is, for nesting. */
    enum Held {
        EXCLUSIVE,
        READ,
        PERMITS
    }

    Held held();

    /** Takes a hold for a new handle, waiting as {@code options} say. */
    LockHandle acquire(DistributedLockFactory factory, String name, LockOptions options) throws InterruptedException;

    /** Like {@link #acquire}, empty when the wait ran out. */
    Optional<LockHandle> tryAcquire(DistributedLockFactory factory, String name, LockOptions options)
            throws InterruptedException;

    /** {@link #acquire} without blocking; fails with {@link io.lockkit.LockNotAcquiredException} when the wait runs out. */
    CompletableFuture<LockHandle> acquireAsync(DistributedLockFactory factory, String name, LockOptions options);

    /** The thread-owned lock the calling thread holds of {@code name} that a call of this kind joins, or null. */
    default @Nullable DistributedLock threadHold(DistributedLockFactory factory, String name) {
        return null;
    }

    /** The key under which a transaction keeps a hold of this kind of {@code name}. */
    default String transactionKey(String name) {
        return name + KEY_SEPARATOR + held().name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The hold of {@code name} the current transaction keeps that a call of this kind joins, or null.
     *
     * @throws IllegalMonitorStateException when it keeps a read hold and this call is exclusive (an upgrade)
     */
    default HeldLocks.@Nullable Hold joinTransaction(
            TransactionCompletion transactions, DistributedLockFactory factory, String name) {
        LockHandle own = transactions.heldUntilCompletion(factory, transactionKey(name));
        return own == null ? null : new HeldLocks.Hold(own, held());
    }

    /** The exclusive lock of the name. */
    record Exclusive() implements HoldKind {
        @Override
        public Held held() {
            return Held.EXCLUSIVE;
        }

        @Override
        public LockHandle acquire(DistributedLockFactory factory, String name, LockOptions options)
                throws InterruptedException {
            return factory.acquire(name, options);
        }

        @Override
        public Optional<LockHandle> tryAcquire(DistributedLockFactory factory, String name, LockOptions options)
                throws InterruptedException {
            return factory.tryAcquire(name, options);
        }

        @Override
        public CompletableFuture<LockHandle> acquireAsync(
                DistributedLockFactory factory, String name, LockOptions options) {
            return factory.acquireAsync(name, options).toCompletableFuture();
        }

        /** {@link #acquireAsync} that completes empty when the wait runs out. */
        public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(
                DistributedLockFactory factory, String name, LockOptions options) {
            return factory.tryAcquireAsync(name, options).toCompletableFuture();
        }

        @Override
        public @Nullable DistributedLock threadHold(DistributedLockFactory factory, String name) {
            DistributedLock lock = factory.getLock(name);
            return lock.isHeldByCurrentThread() ? lock : null;
        }

        @Override
        public String transactionKey(String name) {
            return name;
        }

        @Override
        public HeldLocks.@Nullable Hold joinTransaction(
                TransactionCompletion transactions, DistributedLockFactory factory, String name) {
            if (transactions.heldUntilCompletion(factory, new Read().transactionKey(name)) != null) {
                throw HeldLocks.upgrade(name);
            }
            LockHandle own = transactions.heldUntilCompletion(factory, name);
            return own == null ? null : new HeldLocks.Hold(own, Held.EXCLUSIVE);
        }
    }

    /** The read side of the name's read/write lock. */
    record Read() implements HoldKind {
        @Override
        public Held held() {
            return Held.READ;
        }

        @Override
        public LockHandle acquire(DistributedLockFactory factory, String name, LockOptions options)
                throws InterruptedException {
            return factory.getReadWriteLock(name).acquireRead(options);
        }

        @Override
        public Optional<LockHandle> tryAcquire(DistributedLockFactory factory, String name, LockOptions options)
                throws InterruptedException {
            return factory.getReadWriteLock(name).tryAcquireRead(options);
        }

        @Override
        public CompletableFuture<LockHandle> acquireAsync(
                DistributedLockFactory factory, String name, LockOptions options) {
            return factory.getReadWriteLock(name).acquireReadAsync(options).toCompletableFuture();
        }

        /** The thread's write hold (joined: a reader inside the writer) or read hold of the name. */
        @Override
        public @Nullable DistributedLock threadHold(DistributedLockFactory factory, String name) {
            DistributedReadWriteLock lock = factory.getReadWriteLock(name);
            if (lock.writeLock().isHeldByCurrentThread()) {
                return lock.writeLock();
            }
            return lock.readLock().isHeldByCurrentThread() ? lock.readLock() : null;
        }

        @Override
        public HeldLocks.@Nullable Hold joinTransaction(
                TransactionCompletion transactions, DistributedLockFactory factory, String name) {
            LockHandle write = transactions.heldUntilCompletion(factory, name);
            if (write != null) {
                return new HeldLocks.Hold(write, Held.EXCLUSIVE);
            }
            LockHandle read = transactions.heldUntilCompletion(factory, transactionKey(name));
            return read == null ? null : new HeldLocks.Hold(read, Held.READ);
        }
    }

    /** {@code permits} permits of the semaphore of the name, of {@code capacity}, fair or not. */
    record Permits(int permits, int capacity, boolean fair) implements HoldKind {
        @Override
        public Held held() {
            return Held.PERMITS;
        }

        private DistributedSemaphore semaphore(DistributedLockFactory factory, String name) {
            return fair ? factory.getFairSemaphore(name, capacity) : factory.getSemaphore(name, capacity);
        }

        @Override
        public LockHandle acquire(DistributedLockFactory factory, String name, LockOptions options)
                throws InterruptedException {
            return semaphore(factory, name).acquire(permits, options);
        }

        @Override
        public Optional<LockHandle> tryAcquire(DistributedLockFactory factory, String name, LockOptions options)
                throws InterruptedException {
            return semaphore(factory, name).tryAcquire(permits, options);
        }

        @Override
        public CompletableFuture<LockHandle> acquireAsync(
                DistributedLockFactory factory, String name, LockOptions options) {
            return semaphore(factory, name).acquireAsync(permits, options).toCompletableFuture();
        }
    }
}
