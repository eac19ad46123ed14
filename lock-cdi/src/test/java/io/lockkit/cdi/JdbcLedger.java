package io.lockkit.cdi;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.transaction.Synchronization;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/** An application that writes entries through its JTA DataSource under {@code @Locked} and {@code @Transactional}. */
@ApplicationScoped
public class JdbcLedger {

    /** The application's DataSource, set by the test before the container starts. */
    static volatile EnlistedDataSource dataSource;

    @Inject
    Inner inner;

    @Inject
    DistributedLockFactory locks;

    /** Posts inside a transaction of its own; {@code duringCommit} runs after the entry is committed, before completion ends. */
    @Transactional
    public void post(String account, Runnable duringCommit, boolean fail) throws Exception {
        inner.post(account);
        com.arjuna.ats.jta.TransactionManager.transactionManager()
                .getTransaction()
                .registerSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                        duringCommit.run();
                    }

                    @Override
                    public void afterCompletion(int status) {}
                });
        if (fail) {
            throw new IllegalStateException("insufficient funds");
        }
    }

    /** Takes a lock with the injected factory and writes an entry in a transaction that then rolls back. */
    @Transactional
    public void holdThenRollBack(String account, LockHandle[] hold) throws Exception {
        hold[0] = locks.acquire("ledger:" + account);
        insert(account);
        throw new IllegalStateException("rolled back");
    }

    static void insert(String account) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("INSERT INTO ledger_entries (account) VALUES (?)")) {
            s.setString(1, account);
            s.executeUpdate();
        }
    }

    /** The @Locked part, called inside the caller's transaction. */
    @ApplicationScoped
    public static class Inner {
        @Locked("ledger:{account}")
        public void post(String account) throws SQLException {
            insert(account);
        }
    }

    /** Makes the test's DataSource the application's {@code @Default} DataSource bean. */
    @Singleton
    public static class DataSources {
        @Produces
        @Singleton
        DataSource dataSource() {
            return dataSource;
        }
    }
}
