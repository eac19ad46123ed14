package io.lockkit.cdi.internal;

import io.lockkit.LockException;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A provider whose calls run outside the caller's JTA transaction: the transaction active on the
 * calling thread, if any, is suspended for the call and resumed after it, so a database provider's
 * statements go to connections that are not enlisted in it. Thread-safe.
 */
// Design notes.
// - Loaded only when the JTA API is present and a TransactionManager was found (Transactions).
// - Every call that may reach the database is wrapped, subscribe included (it may open the LISTEN
//   connection, which must not be enlisted either). Suspension is per call and per thread: the
//   watchdog's and the LISTEN thread's calls have no transaction and pay nothing but one lookup.
final class JtaSuspension extends ForwardingLockProvider {

    private final TransactionManager transactions;

    JtaSuspension(LockProvider delegate, TransactionManager transactions) {
        super(delegate);
        this.transactions = transactions;
    }

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        return outside(request.name(), () -> super.tryAcquire(request));
    }

    @Override
    public Release release(String name, String owner) {
        return outside(name, () -> super.release(name, owner));
    }

    @Override
    public void abandon(String name, String owner, long waitId) {
        outside(name, () -> {
            super.abandon(name, owner, waitId);
            return null;
        });
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        return outside(null, () -> super.renew(renewals));
    }

    @Override
    public boolean forceRelease(String name) {
        return outside(name, () -> super.forceRelease(name));
    }

    @Override
    public Optional<LockState> inspect(String name) {
        return outside(name, () -> super.inspect(name));
    }

    @Override
    public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
        return outside(null, () -> super.list(prefix, cursor, pageSize));
    }

    @Override
    public Subscription subscribe(String name, WakeUpListener listener) {
        return outside(name, () -> super.subscribe(name, listener));
    }

    @Override
    public String toString() {
        return delegate() + " (outside the caller's JTA transaction)";
    }

    private <T> T outside(@Nullable String name, Supplier<T> call) {
        Transaction suspended;
        try {
            suspended = transactions.getTransaction() == null ? null : transactions.suspend();
        } catch (SystemException e) {
            throw new LockException(name, "suspending the caller's transaction failed: " + e.getMessage(), e);
        }
        if (suspended == null) {
            return call.get();
        }
        T result;
        try {
            result = call.get();
        } catch (RuntimeException | Error e) {
            try {
                transactions.resume(suspended);
            } catch (Exception resumeFailure) {
                e.addSuppressed(resumeFailure);
            }
            throw e;
        }
        try {
            transactions.resume(suspended);
        } catch (Exception e) {
            // The caller's transaction cannot continue on this thread: fail the call loudly.
            throw new LockException(name, "resuming the caller's transaction failed: " + e, e);
        }
        return result;
    }
}
