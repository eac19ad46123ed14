package io.lockkit.jdbc.internal;

import io.lockkit.BackendUnavailableException;
import io.lockkit.spi.support.Causes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Where the provider's connections come from: the application's {@link DataSource} (its pool keeps
 * and checks them), or a JDBC URL, for which this class keeps a small pool of its own. Every
 * connection handed out is in autocommit. Thread-safe.
 */
public abstract class ConnectionSource implements AutoCloseable {

    /** Runs the driver's timeout work on the calling thread: we only want the socket read timeout. */
    private static final Executor DIRECT = Runnable::run;

    /** A connection for one operation, in autocommit. */
    public abstract Connection borrow() throws SQLException;

    /** Gives back what {@link #borrow()} handed out; a broken connection is closed, not reused. */
    public abstract void giveBack(Connection c, boolean broken);

    /** Closes idle connections, e.g. after one of them was found broken by a database restart. */
    public abstract void discardIdle();

    /** A connection kept for a long time (the LISTEN connection); the caller closes it. */
    public abstract Connection openDedicated() throws SQLException;

    /**
     * The database product name the driver reports, e.g. {@code PostgreSQL}.
     *
     * @throws io.lockkit.BackendUnavailableException when no connection can be had
     */
    public String productName() {
        String what = "detecting the database of " + this + " (set dialect(...) to skip this) failed: ";
        Connection c;
        try {
            c = borrow();
        } catch (SQLException e) {
            throw new BackendUnavailableException(null, what + Causes.describe(e), e);
        }
        try {
            return c.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            throw new BackendUnavailableException(null, what + Causes.describe(e), e);
        } finally {
            giveBack(c, false);
        }
    }

    @Override
    public abstract void close();

    /** Connections from the application's pool; closing the source closes nothing of the pool. */
    public static ConnectionSource of(DataSource dataSource) {
        return new FromDataSource(dataSource);
    }

    /**
     * Connections to {@code url} with the dialect's driver settings, at most {@code max} at once (a
     * caller waits up to the dialect's timeout for one), each with a socket read timeout of twice the
     * timeout, rounded up to seconds: it backs up the query timeout for a database that stopped
     * answering altogether (a query timeout's cancel request is not answered either).
     */
    public static ConnectionSource of(
            String url, @Nullable String user, @Nullable String password, Dialect dialect, int max) {
        dialect.requireDriver(url);
        Properties props = new Properties();
        if (user != null) {
            props.setProperty("user", user);
            if (password != null) {
                props.setProperty("password", password);
            }
        }
        int seconds = dialect.context().timeoutSeconds();
        dialect.driverProperties(url, seconds, props);
        Duration timeout = dialect.context().timeout();
        return of(url, props, max, timeout, timeout.plusSeconds(seconds));
    }

    /**
     * Connections to {@code url}, at most {@code max} at once (a caller waits up to {@code timeout}
     * for one), each with a socket read timeout of {@code networkTimeout}.
     */
    public static ConnectionSource of(
            String url, Properties properties, int max, Duration timeout, Duration networkTimeout) {
        return new FromUrl(url, properties, max, timeout, networkTimeout);
    }

    /** A call that opens or borrows a connection. */
    @FunctionalInterface
    interface Connect {
        Connection get() throws SQLException;
    }

    /**
     * Runs {@code connect} with the caller's interrupt status set aside, and sets it again after:
     * drivers and pools give up on an interrupted thread (pgjdbc's connect waits for its login
     * timeout on another thread; pools wait for a free connection), while an interrupt is the lock
     * caller's business and never a failure of the database. A connect that fails because an
     * interrupt arrived while it ran is tried again, a few times.
     */
    static Connection throughInterrupts(Connect connect) throws SQLException {
        boolean interrupted = Thread.interrupted();
        try {
            for (int attempt = 0; ; attempt++) {
                try {
                    return connect.get();
                } catch (SQLException e) {
                    if (attempt < 3 && Thread.interrupted()) {
                        interrupted = true;
                        continue;
                    }
                    throw e;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static void autocommit(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            try {
                c.setAutoCommit(true);
            } catch (SQLException e) {
                throw new SQLException(
                        "the connection cannot be put in autocommit (is it enlisted in the caller's"
                                + " transaction? lockkit needs connections outside of it, e.g. a non-JTA DataSource): "
                                + e.getMessage(),
                        e.getSQLState(),
                        e);
            }
        }
    }

    private static final class FromDataSource extends ConnectionSource {
        private final DataSource dataSource;

        FromDataSource(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        public Connection borrow() throws SQLException {
            Connection c = throughInterrupts(dataSource::getConnection);
            try {
                autocommit(c);
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            return c;
        }

        @Override
        public void giveBack(Connection c, boolean broken) {
            if (broken) {
                try {
                    // Tell a pool that understands it (JDBC 4.1 abort) that the connection is dead.
                    c.abort(DIRECT);
                } catch (SQLException | RuntimeException | AbstractMethodError e) {
                    // fall through to close
                }
            }
            closeQuietly(c);
        }

        @Override
        public void discardIdle() {
            // The application's pool validates its connections itself.
        }

        @Override
        public Connection openDedicated() throws SQLException {
            return borrow();
        }

        @Override
        public void close() {}

        @Override
        public String toString() {
            return "DataSource " + dataSource;
        }
    }

    private static final class FromUrl extends ConnectionSource {
        private final String url;
        private final Properties properties;
        private final Semaphore permits;
        private final Duration timeout;
        private final int networkTimeoutMillis;
        private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
        private volatile boolean closed;

        FromUrl(String url, Properties properties, int max, Duration timeout, Duration networkTimeout) {
            this.url = url;
            this.properties = properties;
            this.permits = new Semaphore(max);
            this.timeout = timeout;
            this.networkTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, networkTimeout.toMillis());
        }

        @Override
        public Connection borrow() throws SQLException {
            acquirePermit();
            try {
                Connection c = idle.pollFirst();
                return c != null ? c : open();
            } catch (SQLException | RuntimeException e) {
                permits.release();
                throw e;
            }
        }

        /**
         * Waits for a connection slot without being cut short by the thread's interrupt flag: a
         * thread that keeps its interrupt (lock() through an interrupt) must still be able to unlock.
         */
        private void acquirePermit() throws SQLTimeoutException {
            if (permits.tryAcquire()) {
                return;
            }
            long end = System.nanoTime() + timeout.toNanos();
            boolean interrupted = false;
            try {
                while (true) {
                    long left = end - System.nanoTime();
                    try {
                        if (permits.tryAcquire(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                            return;
                        }
                        throw new SQLTimeoutException(
                                "no connection of the lock provider came free within " + timeout.toMillis() + " ms");
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void giveBack(Connection c, boolean broken) {
            try {
                if (broken || closed) {
                    closeQuietly(c);
                } else {
                    idle.offerFirst(c);
                    if (closed && idle.remove(c)) {
                        closeQuietly(c);
                    }
                }
            } finally {
                permits.release();
            }
        }

        @Override
        public void discardIdle() {
            Connection c;
            while ((c = idle.pollLast()) != null) {
                closeQuietly(c);
            }
        }

        @Override
        public Connection openDedicated() throws SQLException {
            return open();
        }

        private Connection open() throws SQLException {
            if (closed) {
                throw new SQLException("the lock provider is closed", "08003");
            }
            Connection c = throughInterrupts(() -> DriverManager.getConnection(url, properties));
            try {
                autocommit(c);
                try {
                    c.setNetworkTimeout(DIRECT, networkTimeoutMillis);
                } catch (java.sql.SQLFeatureNotSupportedException | AbstractMethodError e) {
                    // The driver has no socket timeout (H2 in memory needs none): query timeouts still apply.
                }
            } catch (SQLException | RuntimeException e) {
                closeQuietly(c);
                throw e;
            }
            return c;
        }

        @Override
        public void close() {
            closed = true;
            discardIdle();
        }

        @Override
        public String toString() {
            return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
        }
    }

    static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            // nothing to do about a connection that cannot even close
        }
    }
}
