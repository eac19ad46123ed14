package io.lockkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The {@link MultiLockHandle} of {@link MultiLocks}: its members' handles in the order taken, and
 * the first loss of any of them. Members are added by the acquiring thread only, before the
 * handle is returned; after that the list does not change. Thread-safe once returned.
 */
final class OwnedMultiLockHandle implements MultiLockHandle {

    private final List<LockHandle> members;
    private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();
    private final AtomicBoolean released = new AtomicBoolean();

    OwnedMultiLockHandle(int size) {
        this.members = new ArrayList<>(size);
    }

    /** A member just taken; its loss is this handle's. */
    void add(LockHandle member) {
        members.add(member);
        member.lost().thenAccept(lost::complete);
    }

    /**
     * Releases the members taken so far, for an acquisition that did not complete: every one is
     * tried; a failure is added to {@code cause} (the acquisition's own failure) or, without one,
     * thrown. A member lost meanwhile is not a failure here: the caller never had it, and no
     * acquisition reports a {@link LockLostException} (its loss still reaches the factory's
     * listeners and observers, as every loss does).
     */
    void rollBack(@Nullable Throwable cause) {
        released.set(true);
        RuntimeException failure = releaseAll(true, false);
        if (failure == null) {
            return;
        }
        if (cause != null) {
            cause.addSuppressed(failure);
        } else {
            throw failure;
        }
    }

    @Override
    public List<String> names() {
        List<String> names = new ArrayList<>(members.size());
        for (LockHandle m : members) {
            names.add(m.name());
        }
        return Collections.unmodifiableList(names);
    }

    @Override
    public List<LockHandle> members() {
        return Collections.unmodifiableList(members);
    }

    @Override
    public long fencingToken(String name) {
        for (LockHandle m : members) {
            if (m.name().equals(name)) {
                return m.fencingToken();
            }
        }
        throw new IllegalArgumentException(
                "name must be one of this multi-lock's names " + names() + ", was '" + name + "'");
    }

    @Override
    public boolean isValid() {
        for (LockHandle m : members) {
            if (!m.isValid()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public Duration remainingLease() {
        Duration shortest = null;
        for (LockHandle m : members) {
            Duration left = m.remainingLease();
            if (shortest == null || left.compareTo(shortest) < 0) {
                shortest = left;
            }
        }
        return shortest == null ? Duration.ZERO : shortest;
    }

    @Override
    public CompletionStage<LockLostException> lost() {
        return lost.minimalCompletionStage();
    }

    @Override
    public void release() {
        if (!released.compareAndSet(false, true)) {
            throw new IllegalStateException("this multi-lock handle was already released");
        }
        RuntimeException failure = releaseAll(false, true);
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() {
        if (!released.compareAndSet(false, true)) {
            return;
        }
        RuntimeException failure = releaseAll(true, true);
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Releases every member in reverse order ({@code closing}: as {@link LockHandle#close()} does,
     * else one hold each, as {@link LockHandle#release()} does); returns the first failure with the
     * others suppressed, or null. The members held now go first, together in one provider call
     * ({@link BatchReleases}); the rest, and with {@code closing} what is left of the batched
     * ones (more than one count), one by one. Without {@code losses}, a member's
     * {@link LockLostException} is left out.
     */
    private @Nullable RuntimeException releaseAll(boolean closing, boolean losses) {
        List<OwnedLockHandle> batched = batchable();
        RuntimeException first = null;
        if (batched.size() > 1) {
            List<Hold> held = new ArrayList<>(batched.size());
            List<Runnable> whenEmpty = new ArrayList<>(batched.size());
            for (OwnedLockHandle m : batched) {
                held.add(m.hold());
                whenEmpty.add(m.whenEmpty());
            }
            OwnedLockHandle any = batched.get(0);
            for (RuntimeException e : BatchReleases.releaseEach(any.holds(), any.ticker(), held, whenEmpty)) {
                first = added(first, e, losses);
            }
        } else {
            batched = List.of();
        }
        for (int i = members.size() - 1; i >= 0; i--) {
            LockHandle m = members.get(i);
            if (!closing && batched.contains(m)) {
                continue;
            }
            try {
                if (closing) {
                    m.close();
                } else {
                    m.release();
                }
            } catch (RuntimeException e) {
                first = added(first, e, losses);
            }
        }
        return first;
    }

    /** The members, in reverse order, whose holds are held now by one factory's holds: one batch. */
    private List<OwnedLockHandle> batchable() {
        List<OwnedLockHandle> batched = new ArrayList<>(members.size());
        for (int i = members.size() - 1; i >= 0; i--) {
            if (members.get(i) instanceof OwnedLockHandle m
                    && m.hold().state() == Hold.State.HELD
                    && (batched.isEmpty() || batched.get(0).holds() == m.holds())) {
                batched.add(m);
            }
        }
        return batched;
    }

    private static @Nullable RuntimeException added(
            @Nullable RuntimeException first, @Nullable RuntimeException e, boolean losses) {
        if (!losses && e instanceof LockLostException) {
            return first;
        }
        if (e == null || first == null) {
            return first == null ? e : first;
        }
        if (e != first) {
            first.addSuppressed(e);
        }
        return first;
    }

    @Override
    public String toString() {
        return "MultiLockHandle" + names() + (isValid() ? "" : ", not valid");
    }
}
