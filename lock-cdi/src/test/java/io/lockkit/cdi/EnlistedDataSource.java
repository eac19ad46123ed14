package io.lockkit.cdi;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource that behaves like a container's JTA datasource: inside a Narayana transaction every
 * {@link #getConnection()} returns the transaction's one connection, not in autocommit (setting
 * autocommit fails, as Agroal and the servers' pools do), committed when the transaction commits
 * (at the end of its prepare, as a container's last-resource commit does) and rolled back
 * otherwise; outside a transaction, a plain autocommit connection.
 */
final class EnlistedDataSource implements DataSource {

    private static final TransactionManager TRANSACTIONS = com.arjuna.ats.jta.TransactionManager.transactionManager();

    private final String url;
    private final Map<Transaction, Connection> enlisted = new ConcurrentHashMap<>();
    /** Connections handed out inside a transaction. */
    final AtomicInteger enlistedConnections = new AtomicInteger();
    /** Connections handed out outside any transaction. */
    final AtomicInteger plainConnections = new AtomicInteger();

    EnlistedDataSource(String url) {
        this.url = url;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Transaction tx;
        try {
            tx = TRANSACTIONS.getTransaction();
        } catch (jakarta.transaction.SystemException e) {
            throw new SQLException(e);
        }
        if (tx == null) {
            plainConnections.incrementAndGet();
            return DriverManager.getConnection(url);
        }
        Connection c = enlisted.get(tx);
        if (c == null) {
            c = enlist(tx);
        }
        enlistedConnections.incrementAndGet();
        Connection target = c;
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "close" -> null; // stays with the transaction
                    case "setAutoCommit" -> {
                        if ((Boolean) args[0]) {
                            throw new SQLException("the connection is enlisted in a JTA transaction: no autocommit");
                        }
                        yield null;
                    }
                    case "commit", "rollback" ->
                        throw new SQLException("the connection is enlisted in a JTA transaction");
                    default -> {
                        try {
                            yield method.invoke(target, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }
                });
    }

    private Connection enlist(Transaction tx) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        c.setAutoCommit(false);
        try {
            tx.registerSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    try {
                        if (tx.getStatus() == Status.STATUS_ACTIVE) {
                            c.commit();
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException("commit failed", e);
                    }
                }

                @Override
                public void afterCompletion(int status) {
                    enlisted.remove(tx);
                    try (c) {
                        if (status != Status.STATUS_COMMITTED) {
                            c.rollback();
                        }
                    } catch (SQLException e) {
                        // the connection is closed either way
                    }
                }
            });
        } catch (Exception e) {
            c.close();
            throw new SQLException("enlisting failed", e);
        }
        enlisted.put(tx, c);
        return c;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
