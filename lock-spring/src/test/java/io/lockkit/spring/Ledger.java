package io.lockkit.spring;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.cdi.Locked;
import java.util.Optional;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A balance read and written back under @Locked and @Transactional: the next holder reads the row
 * only if the lock outlives the commit. Each commit also checks, from another owner, that the lock
 * is still held when the transaction has committed.
 */
public class Ledger {

    private final JdbcTemplate jdbc;
    private final DistributedLockFactory factory;
    /** Commits after which another owner could take the lock: must stay 0. */
    private final AtomicInteger releasedBeforeCommitEnded = new AtomicInteger();

    public Ledger(JdbcTemplate jdbc, DistributedLockFactory factory) {
        this.jdbc = jdbc;
        this.factory = factory;
    }

    @Locked("account-{0}")
    @Transactional
    public void deposit(String account) {
        Integer balance = jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?", Integer.class, account);
        Thread.yield();
        jdbc.update("UPDATE accounts SET balance = ? WHERE id = ?", balance + 1, account);
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                if (takenElsewhere("account-" + account)) {
                    releasedBeforeCommitEnded.incrementAndGet();
                }
            }
        });
    }

    /** Whether another owner, on another thread, gets the lock now. */
    private boolean takenElsewhere(String name) {
        try {
            FutureTask<Optional<LockHandle>> attempt = new FutureTask<>(() -> factory.tryAcquire(name));
            new Thread(attempt, "another-owner").start();
            Optional<LockHandle> other = attempt.get(30, TimeUnit.SECONDS);
            other.ifPresent(LockHandle::release);
            return other.isPresent();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public int balance(String account) {
        return jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?", Integer.class, account);
    }

    public int releasedBeforeCommitEnded() {
        return releasedBeforeCommitEnded.get();
    }
}
