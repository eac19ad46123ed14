package io.lockkit.jdbc;

import io.lockkit.jdbc.internal.AbandonStatement;
import io.lockkit.jdbc.internal.AcquireStatement;
import io.lockkit.jdbc.internal.ConnectionSource;
import io.lockkit.jdbc.internal.Dialect;
import io.lockkit.jdbc.internal.FairQueue;
import io.lockkit.jdbc.internal.ForceReleaseStatement;
import io.lockkit.jdbc.internal.Inspection;
import io.lockkit.jdbc.internal.JdbcCalls;
import io.lockkit.jdbc.internal.Keys;
import io.lockkit.jdbc.internal.Options;
import io.lockkit.jdbc.internal.ReleaseStatement;
import io.lockkit.jdbc.internal.Schema;
import io.lockkit.jdbc.internal.SharedHolds;
import io.lockkit.jdbc.internal.WakeUps;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.Arguments;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The JDBC lock backend: locks are rows of a lock table in PostgreSQL, MariaDB (or MySQL 8) or H2,
 * reached through the application's {@link DataSource} or a JDBC URL. Thread-safe.
 *
 * <pre>{@code
 * DistributedLockFactory locks = DistributedLockFactory.builder(
 *         JdbcLockProvider.builder().dataSource(dataSource).build()).build();
 * }</pre>
 *
 * <p>Failures: a database that cannot be reached or does not answer within {@link Builder#timeout}
 * gives a {@link io.lockkit.BackendUnavailableException}; a missing lock table a
 * {@link LockSchemaException}; any call after {@link #close()} a {@link io.lockkit.LockException};
 * bad builder arguments an {@link IllegalArgumentException} naming them.
 */
// Design notes.
// - A row per lock (lock_key = SHA-256 of the name, owner, hold count, token, lease deadline), not
//   advisory locks, which belong to a session: they break under poolers in transaction mode, die with
//   a connection the pool recycles, and carry no token. A release deletes the row (or hands it over).
// - Time is the database's ("database now + lease", compared with its now): clients' clocks may skew.
// - Fencing tokens come from a counter the database keeps, drawn once the row is locked or claimed:
//   they increase per name across release, expiry, force release, deleted rows and restarts.
// - The SQL is a named contract: one class per statement (AcquireStatement, ...) with an argument
//   record and a sealed reply; the dialects' statements name their parameters after the record's
//   components (NamedSql binds them); SqlContractTest holds SQL, routines and classes together.
// - Each operation is one statement or one short transaction on a connection of the provider's own
//   in autocommit, never in the caller's transaction; JdbcCalls retries once on a fresh connection.
// - Hand-over, where the dialect queues waiters: a release nobody waits for deletes the row and tells
//   nobody; else the lock goes to the next live waiter, outright to a waiter of the releasing client
//   (Release.grantedTo), or to claim, and only the grantee's process is woken (WakeUps). A contended
//   acquisition costs at most three statements. Without a live WakeUpSource, other clients poll.
// - createSchema(true) runs only the migrations above the version table's (Schema): no DDL at a start.
// - Shared claims go to SharedHolds (releases, renewals too); fair exclusive ones to FairQueue.
public final class JdbcLockProvider implements LockProvider {

    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.allOf(Capability.class));
    /** The lock table's name unless configured: {@code lockkit_locks}. */
    public static final String DEFAULT_TABLE = "lockkit_locks";
    /** How long a statement may take, and how long a call waits for a pooled connection: 2 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** The longest a waiter sleeps between attempts when no notification can wake it: 250 ms. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(250);
    /** How long a waiter has to claim a lock handed to it before the lock lapses for anyone (PostgreSQL): 2 s. */
    public static final Duration DEFAULT_CLAIM_TIMEOUT = Duration.ofSeconds(2);
    /** Connections of the provider's own pool (JDBC URL only): 4. */
    public static final int DEFAULT_MAX_CONNECTIONS = 4;
    /** Holds renewed by one statement; more go out in several. */
    static final int RENEW_BATCH = 5000;
    /** Hand-overs in a row to a waiter of the releasing client ahead of an older one of another client: 8. */
    static final int MAX_LOCAL_STREAK = 8;

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final JdbcDialect dialect;
    private final Dialect sql;
    private final Dialect.Context context;
    private final JdbcCalls calls;
    private final WakeUps wakeUps;
    private final SharedHolds shared;
    private final String description;

    private JdbcLockProvider(
            Builder b, JdbcDialect dialect, Dialect sql, Dialect.Context context, ConnectionSource connections) {
        this.dialect = dialect;
        this.sql = sql;
        this.context = context;
        this.calls = new JdbcCalls(connections, sql);
        this.shared = new SharedHolds(sql, new FairQueue(sql));
        int instance = INSTANCES.incrementAndGet();
        ThreadFactory threads =
                b.threadFactory != null ? b.threadFactory : r -> new Thread(r, "lockkit-jdbc-wake-ups-" + instance);
        this.wakeUps = new WakeUps(sql, connections, threads, b.timeout, b.listen);
        this.description = "JdbcLockProvider[" + dialect.name().toLowerCase(Locale.ROOT) + ", table " + context.table()
                + ", " + connections + "]";
    }

    /** A provider on a JDBC URL (user and password as URL parameters), with every other option at its default. */
    public static JdbcLockProvider create(String jdbcUrl) {
        return builder().jdbcUrl(jdbcUrl).build();
    }

    /** A provider on the application's DataSource, with every other option at its default. */
    public static JdbcLockProvider create(DataSource dataSource) {
        return builder().dataSource(dataSource).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        if (!request.claim().exclusive()) {
            return shared.tryAcquire(calls, request, context);
        }
        if (request.claim().fair()) {
            return shared.fair().acquire(calls, request, context, wakeUps.live());
        }
        AcquireStatement.Args args = AcquireStatement.Args.of(request, context);
        AcquireStatement.Reply reply = calls.run(request.name(), "acquiring", c -> sql.acquire(c, args));
        if (reply instanceof AcquireStatement.Acquired a) {
            return Acquisition.acquired(a.token());
        }
        Duration left = ((AcquireStatement.Busy) reply).remainingLease();
        Duration retry = left == null ? context.pollInterval() : left;
        if (!wakeUps.live() && retry.compareTo(context.pollInterval()) > 0) {
            retry = context.pollInterval();
        }
        return Acquisition.busy(retry);
    }

    @Override
    public Release release(String name, String owner) {
        if (shared.involves(name)) {
            Optional<ReleaseStatement.Reply> reply =
                    calls.run(name, "releasing shared", c -> shared.release(c, name, owner, context));
            if (reply.isPresent()) {
                wakeUps.afterSharedRelease(Keys.of(name), reply.get());
                return ReleaseStatement.toRelease(reply.get());
            }
        }
        ReleaseStatement.Args args = ReleaseStatement.Args.of(name, owner, MAX_LOCAL_STREAK, context);
        ReleaseStatement.Reply reply = calls.run(name, "releasing", c -> sql.release(c, args));
        wakeUps.afterRelease(args.key(), reply);
        return ReleaseStatement.toRelease(reply);
    }

    @Override
    public void abandon(String name, String owner, long waitId) {
        calls.checkOpen(name);
        shared.fair().abandon(calls, name, owner);
        if (sql.abandons()) {
            AbandonStatement.Args args = AbandonStatement.Args.of(name, owner, waitId, context);
            calls.run(name, "leaving the wait queue", c -> sql.abandon(c, args));
        }
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        calls.checkOpen(renewals.isEmpty() ? null : renewals.get(0).name());
        return shared.renew(
                renewals,
                RENEW_BATCH,
                calls,
                (name, holds) -> calls.run(name, "renewing " + holds.size() + " lease(s)", c -> sql.renew(c, holds)));
    }

    @Override
    public boolean forceRelease(String name) {
        ForceReleaseStatement.Args args = new ForceReleaseStatement.Args(Keys.of(name), context.channel());
        ForceReleaseStatement.Reply reply = calls.run(name, "force-releasing", c -> sql.forceRelease(c, args));
        if (reply instanceof ForceReleaseStatement.Deleted) {
            wakeUps.afterRelease(args.key(), ReleaseStatement.freed());
        }
        return reply instanceof ForceReleaseStatement.Deleted d && d.held();
    }

    @Override // one short transaction; waiters are woken as by a shared release
    public void setCapacity(String name, int capacity) {
        calls.run(name, "storing the capacity", c -> shared.setCapacity(c, name, capacity, context));
        wakeUps.afterSharedRelease(Keys.of(name), ReleaseStatement.freed());
    }

    @Override
    public Optional<LockState> inspect(String name) {
        return Inspection.inspect(calls, sql, name);
    }

    /** Lists held locks by name prefix, one query per page (see {@link Inspection#list}). */
    @Override
    public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
        return Inspection.list(calls, sql, prefix, cursor, pageSize);
    }

    @Override
    public Subscription subscribe(String name, WakeUpListener listener) {
        calls.checkOpen(name);
        return wakeUps.subscribe(Keys.of(name), listener);
    }

    /** Every capability: fencing tokens, force release, explicit leases, inspection, listing, shared holds, the fair queue. */
    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public void close() {
        if (calls.closed()) {
            return;
        }
        wakeUps.close();
        calls.close();
    }

    @Override
    public String toString() {
        return description;
    }

    /** The dialect in use. */
    public JdbcDialect dialect() {
        return dialect;
    }

    // ---- for tests in this package ----

    /** Round trips to the database so far. */
    long statements() {
        return sql.roundTrips();
    }

    /** Round trips so far with one named statement of the dialect's statements file (e.g. "acquire"). */
    long statements(String statement) {
        return sql.roundTrips(statement);
    }

    /** Whether other clients' releases are being heard now. */
    boolean listening() {
        return wakeUps.live();
    }

    /** Options for a {@link JdbcLockProvider}; every setter validates its argument. Not thread-safe. */
    public static final class Builder {

        private @Nullable DataSource dataSource;
        private @Nullable String jdbcUrl;
        private @Nullable String user;
        private @Nullable String password;
        private @Nullable JdbcDialect dialect;
        private @Nullable String schema;
        private String table = DEFAULT_TABLE;
        private boolean createSchema;
        private Duration timeout = DEFAULT_TIMEOUT;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private Duration claimTimeout = DEFAULT_CLAIM_TIMEOUT;
        private boolean listen = true;
        private @Nullable ThreadFactory threadFactory;

        private Builder() {}

        /**
         * The application's DataSource. Its connections must not be enlisted in the caller's
         * transaction (use a non-JTA datasource in a Jakarta EE server): the provider puts each in
         * autocommit and fails otherwise.
         */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Arguments.notNull(dataSource, "dataSource");
            return this;
        }

        /** A JDBC URL; the provider then keeps a small pool of its own ({@link #maxConnections(int)}). */
        public Builder jdbcUrl(String jdbcUrl) {
            if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:")) {
                throw new IllegalArgumentException("jdbcUrl must start with jdbc: (was "
                        + (jdbcUrl == null ? null : "'" + Options.redact(jdbcUrl) + "'") + ")");
            }
            this.jdbcUrl = jdbcUrl;
            return this;
        }

        /** The user and password for {@link #jdbcUrl(String)}, when the URL does not carry them. */
        public Builder credentials(String user, @Nullable String password) {
            if (user == null || user.isEmpty()) {
                throw new IllegalArgumentException("user must not be null or empty");
            }
            this.user = user;
            this.password = password;
            return this;
        }

        /** The SQL dialect. Default: from the JDBC URL, or from the DataSource's database product name at build. */
        public Builder dialect(JdbcDialect dialect) {
            this.dialect = Arguments.notNull(dialect, "dialect");
            return this;
        }

        /** The schema of the lock table. Default: none (the connection's search path / default schema). */
        public Builder schema(String schema) {
            this.schema = Options.identifier(schema, "schema", Options.MAX_IDENTIFIER);
            return this;
        }

        /**
         * The lock table's name (letters, digits and underscores, at most 53 characters: the names
         * derived from it, such as {@code <table>_token_seq}, must fit too). Default: {@link #DEFAULT_TABLE}.
         */
        public Builder table(String table) {
            this.table = Options.identifier(table, "table", Options.MAX_IDENTIFIER - Options.LONGEST_SUFFIX);
            return this;
        }

        /**
         * Whether {@link #build()} creates the lock table, or upgrades it, when its version table says
         * so (one query when the schema is current: no DDL, so an application role without DDL rights
         * may keep this on). Default: false.
         */
        public Builder createSchema(boolean createSchema) {
            this.createSchema = createSchema;
            return this;
        }

        /**
         * How long a statement may take (as a query timeout, whole seconds, rounded up) and how long a
         * call waits for a pooled connection; with a JDBC URL also the connect and socket timeouts.
         * Default: {@link #DEFAULT_TIMEOUT}.
         */
        public Builder timeout(Duration timeout) {
            this.timeout = Arguments.positive(timeout, "timeout");
            return this;
        }

        /** The longest a waiter sleeps between attempts when no notification can wake it. Default: {@link #DEFAULT_POLL_INTERVAL}. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = Arguments.positive(pollInterval, "pollInterval");
            return this;
        }

        /**
         * How long a waiter has to claim a lock a release handed to it (PostgreSQL); a waiter that
         * is gone costs this long before anyone may take the lock. Default: {@link #DEFAULT_CLAIM_TIMEOUT}.
         */
        public Builder claimTimeout(Duration claimTimeout) {
            this.claimTimeout = Arguments.positive(claimTimeout, "claimTimeout");
            return this;
        }

        /** The size of the provider's own pool (JDBC URL only). Default: {@link #DEFAULT_MAX_CONNECTIONS}. */
        public Builder maxConnections(int maxConnections) {
            if (maxConnections < 1 || maxConnections > 1000) {
                throw new IllegalArgumentException("maxConnections must be in 1..1000, was " + maxConnections);
            }
            this.maxConnections = maxConnections;
            return this;
        }

        /**
         * Whether waiters are woken by other clients' releases: LISTEN/NOTIFY on PostgreSQL (needs
         * its JDBC driver and a session-mode connection, not PgBouncer in transaction mode), one
         * poller per provider on MariaDB. Default: true; false: waiters poll each on their own.
         */
        public Builder listen(boolean listen) {
            this.listen = listen;
            return this;
        }

        /** Makes the wake-up thread, e.g. a container-managed factory. Default: daemon threads named lockkit-jdbc-wake-ups-N. */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Arguments.notNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * The provider. Touches the database only to detect the dialect of a DataSource (when not
         * given) and to create or upgrade the schema (when asked).
         *
         * @throws IllegalArgumentException when neither or both of dataSource and jdbcUrl are set, or
         *     the dialect cannot be told
         * @throws IllegalStateException when no JDBC driver on the class path takes jdbcUrl, naming the driver
         * @throws io.lockkit.BackendUnavailableException when the database is needed and cannot be reached
         */
        public JdbcLockProvider build() {
            if ((dataSource == null) == (jdbcUrl == null)) {
                throw new IllegalArgumentException("exactly one of dataSource and jdbcUrl must be set");
            }
            if (dataSource != null && user != null) {
                throw new IllegalArgumentException("credentials apply to jdbcUrl only; a DataSource has its own");
            }
            ConnectionSource connections;
            JdbcDialect d = dialect;
            Dialect sql;
            if (jdbcUrl != null) {
                String url = jdbcUrl;
                if (d == null) {
                    d = JdbcDialect.detect(url);
                    if (d == null) {
                        throw new IllegalArgumentException("jdbcUrl names no supported database ("
                                + JdbcDialect.products() + "): '" + Options.redact(url)
                                + "'; set dialect(...) if it speaks one of their dialects");
                    }
                }
                sql = d.create(context());
                connections = ConnectionSource.of(url, user, password, sql, maxConnections);
            } else {
                connections = ConnectionSource.of(Objects.requireNonNull(dataSource, "dataSource"));
                if (d == null) {
                    d = detect(connections);
                }
                sql = d.create(context());
            }
            JdbcLockProvider provider = new JdbcLockProvider(this, d, sql, sql.context(), connections);
            if (createSchema) {
                try {
                    Schema.ensure(provider.calls, sql);
                } catch (RuntimeException e) {
                    provider.close();
                    throw e;
                }
            }
            return provider;
        }

        private Dialect.Context context() {
            return Dialect.Context.of(schema, table, timeout, claimTimeout, pollInterval);
        }

        private static JdbcDialect detect(ConnectionSource connections) {
            String product = connections.productName();
            JdbcDialect d = JdbcDialect.detect(product);
            if (d == null) {
                throw new IllegalArgumentException("dataSource is a " + product + " database; supported are "
                        + JdbcDialect.products() + " (set dialect(...) if it speaks one of their dialects)");
            }
            return d;
        }
    }
}
