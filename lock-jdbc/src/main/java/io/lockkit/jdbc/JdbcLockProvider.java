package io.lockkit.jdbc;

import io.lockkit.LockException;
import io.lockkit.jdbc.internal.ConnectionSource;
import io.lockkit.jdbc.internal.Failures;
import io.lockkit.jdbc.internal.H2LockTable;
import io.lockkit.jdbc.internal.Keys;
import io.lockkit.jdbc.internal.LockTable;
import io.lockkit.jdbc.internal.PgListener;
import io.lockkit.jdbc.internal.PostgresLockTable;
import io.lockkit.jdbc.internal.SqlFile;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The JDBC lock backend: locks are rows of a lock table in PostgreSQL or H2, reached through the
 * application's {@link DataSource} or a JDBC URL. Thread-safe.
 *
 * <pre>{@code
 * DistributedLockFactory locks = DistributedLockFactory.builder(
 *         JdbcLockProvider.builder().dataSource(dataSource).build()).build();
 * }</pre>
 *
 * <p>Failures: a database that cannot be reached or does not answer within {@link Builder#timeout}
 * gives a {@link io.lockkit.BackendUnavailableException}; a missing lock table a
 * {@link LockSchemaException}; any call after {@link #close()} a {@link LockException}; bad builder
 * arguments an {@link IllegalArgumentException} naming them.
 */
// Design notes.
// - A row per lock (lock_key = SHA-256 of the name, owner, hold count, token, lease deadline), not
//   advisory locks: advisory locks belong to a session (a connection), so they break under poolers
//   in transaction mode (PgBouncer), die with a connection the pool recycles, and carry no token.
//   A release deletes the row; a lapsed row stays until someone takes the name over (or its owner
//   releases it), so the table holds live locks only.
// - Time is the database's: every lease deadline is "database now + lease length", and every
//   comparison is with the database's now (clock_timestamp() on PostgreSQL, CURRENT_TIMESTAMP(6) on
//   H2), so the clients' clocks may be skewed at will. The client-side deadline the core keeps runs
//   from when the request was sent, so it ends no later than the database's.
// - Fencing tokens come from a sequence (<table>_token_seq), not from a per-row counter with a time
//   floor as the Redis provider does (Redis has no sequence that survives key deletion cheaply). A
//   sequence hands out each value once, in increasing order, is durable across restarts (after a
//   crash it skips ahead, never back) and is independent of the row: release, expiry, force release
//   and deleting rows by hand cannot make a token go back. A take-over draws its token after it has
//   locked the row and takes at least the row's token + 1, so a reset sequence cannot go back
//   either while the row exists. A brand-new row's token is drawn before the INSERT finds the key
//   free, so on PostgreSQL the acquisitions of one name pass a per-statement gate (a transaction
//   advisory lock on the key's hash, released at commit: a mutex around one statement, not the
//   lock): no other acquisition of the name can take and release it in between (it happened under
//   load without the gate). H2 inserts first and draws the token after, in its transaction.
// - Every operation is one statement on PostgreSQL (renew, force release, inspect plain SQL;
//   acquire, release, abandon a call of the lock table's PL/pgSQL function, which runs only the
//   SQL of the case at hand: the uncontended pair is one INSERT and one DELETE, as the raw-SQL
//   floor; see postgresql/statements.sql) and one short transaction on H2, on a connection of
//   the provider's own in autocommit: a lock is never part of, nor rolled back with, the caller's
//   transaction. A connection found broken (a database restart) is dropped with the idle ones and
//   the call is made once more on a fresh connection; the statement that failed cannot have
//   committed unless the database failed between commit and reply, and then a re-sent acquisition
//   is one reentrant count too many (the core releases it) and a re-sent release is reported as a
//   loss at the next renewal, never silently.
// - Renewal: all holds the watchdog finds due go out as one statement (PostgreSQL: unnest of three
//   arrays; H2: one JDBC batch), which returns the holds it renewed; the others are lost.
// - Wake-ups and hand-over, PostgreSQL: an attempt that finds the lock busy and will wait also
//   queues its owner (<table>_waiters, oldest first, with its wait id and lease) and raises the
//   lock row's wait_until, in the same statement. A release that finds wait_until empty or past
//   (nobody waits) deletes the row and notifies nobody. Otherwise it hands the lock to the next
//   live waiter: the oldest, except that the oldest waiter of the releasing client goes ahead of
//   an older one of another client for at most 8 hand-overs in a row (the Redis provider's rule;
//   no starvation). A waiter of the releasing client is granted the lock outright
//   (Release.grantedTo: held once, the lease of its request, grant_wait = its wait id): the core
//   passes the token to the waiting thread, no notification, no claim. A waiter of another client
//   gets it to claim (owner = grantee, hold count 0, a new token, the claim timeout as lease) with
//   pg_notify('<channel>', '<key>:<grantee> <origin>'), delivered at commit. One LISTEN connection
//   and thread per provider (started by the first wait) receives every notification of the table
//   and wakes only the grantee, if it is ours, or one waiter of ours for a free lock. A grantee
//   that died costs the claim timeout, after which the lease lapses and anyone may take the lock;
//   a wait that ends without claiming or taking its grant passes the lock on (abandon). So a
//   contended acquisition costs at most three statements however many processes wait: the first
//   attempt, the attempt after subscribing, the claim (none when granted outright). While the
//   LISTEN connection is down (and after it returns) waiters are told to look again and get
//   retry hints no longer than the poll interval. A release retried after its reply was lost
//   finds the lock granted already and answers "not held": the grantee's wait then takes its
//   grant at its next attempt (its retry hint), within the lease the grant carries, or the grant
//   lapses; either way no two hold it. H2: no queue; waiters of this provider are woken by its own releases, and others
//   poll, at most every poll interval, at the latest when the lease they were told of ends.
// - Inspection and listing, for operators: inspect is one SELECT (holder, count, lease left, token,
//   and on PostgreSQL the live entries of the waiters table; H2 has no queue: -1). A listing page is
//   one SELECT with keyset pagination on the primary key (lock_key > the cursor, ORDER BY lock_key,
//   LIMIT the page size), the prefix compared with starts_with (PostgreSQL) or LEFT (H2), so no
//   LIKE wildcard has to be escaped; the name column has no index (a name may exceed a btree
//   entry), so a rare prefix makes the database read more rows than a page returns, while the
//   client holds one page at a time and no connection between pages.
// - Threads and connections: no thread of its own on H2; one LISTEN thread on PostgreSQL. With a
//   JDBC URL, at most maxConnections pooled connections (plus the LISTEN one); with a DataSource,
//   one borrowed per call and returned at once (plus the LISTEN one, held while the provider lives).
public final class JdbcLockProvider implements LockProvider {

    private static final Set<Capability> CAPABILITIES = Set.of(Capability.values());

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

    private static final System.Logger LOG = System.getLogger(JdbcLockProvider.class.getName());
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final int MAX_IDENTIFIER = 63;
    private static final String SEQUENCE_SUFFIX = "_token_seq";
    private static final String WAITERS_SUFFIX = "_waiters";
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    private static final java.security.SecureRandom ORIGINS = new java.security.SecureRandom();

    /** This provider's id in the hand-over notifications of its releases. */
    private final String origin;

    private final ConnectionSource connections;
    private final JdbcDialect dialect;
    private final LockTable table;
    private final String channel;
    private final Duration timeout;
    private final Duration pollInterval;
    private final boolean notifications;
    private final ThreadFactory threadFactory;
    private final String description;
    private final ConcurrentHashMap<String, CopyOnWriteArrayList<WakeUpListener>> listeners = new ConcurrentHashMap<>();
    private final ReentrantLock setup = new ReentrantLock();
    private volatile @Nullable PgListener pgListener;
    private volatile boolean closed;

    private JdbcLockProvider(Builder b, ConnectionSource connections, JdbcDialect dialect) {
        this.origin = Long.toString(ORIGINS.nextLong() & Long.MAX_VALUE, 36);
        this.connections = connections;
        this.dialect = dialect;
        this.timeout = b.timeout;
        this.pollInterval = b.pollInterval;
        String qualified = b.schema == null ? b.table : b.schema + "." + b.table;
        Map<String, String> names = Map.of(
                "table", qualified, "sequence", qualified + SEQUENCE_SUFFIX, "waiters", qualified + WAITERS_SUFFIX);
        int queryTimeout = (int) Math.max(1, (b.timeout.toMillis() + 999) / 1000);
        this.table = dialect == JdbcDialect.POSTGRESQL
                ? new PostgresLockTable(names, queryTimeout, micros(b.claimTimeout), origin)
                : new H2LockTable(names, queryTimeout);
        String ch = (b.schema == null ? b.table : b.schema + "_" + b.table).toLowerCase(Locale.ROOT);
        this.channel = ch.length() > MAX_IDENTIFIER ? ch.substring(0, MAX_IDENTIFIER) : ch;
        this.notifications = table.notifies() && b.listen && PgListener.driverPresent();
        int instance = INSTANCES.incrementAndGet();
        this.threadFactory =
                b.threadFactory != null ? b.threadFactory : r -> new Thread(r, "lockkit-jdbc-listen-" + instance);
        this.description = "JdbcLockProvider[" + dialect.name().toLowerCase(Locale.ROOT) + ", table " + qualified + ", "
                + connections + "]";
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

    // ---- LockProvider ----

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        String name = request.name();
        String key = Keys.of(name);
        LockTable.Ask ask = new LockTable.Ask(
                key,
                name,
                request.owner(),
                micros(request.lease()),
                request.waiting(),
                micros(request.maxWait()),
                request.waitId());
        LockTable.Attempt a = call(name, "acquiring", c -> table.acquire(c, ask));
        if (a.acquired()) {
            return Acquisition.acquired(a.token());
        }
        Duration retry = a.remainingMicros() < 0 ? pollInterval : ofMicros(a.remainingMicros());
        if (!wakeUpsLive() && retry.compareTo(pollInterval) > 0) {
            retry = pollInterval;
        }
        return Acquisition.busy(retry);
    }

    @Override
    public Release release(String name, String owner) {
        String key = Keys.of(name);
        LockTable.Released r = call(name, "releasing", c -> table.release(c, key, owner, channel));
        if (r.left() == LockTable.NOT_HELD) {
            return Release.NOT_HELD;
        }
        if (r.left() > 0) {
            return Release.STILL_HELD;
        }
        if (!notifications) {
            // Nobody will be notified: our own waiters at least learn of it at once.
            wakeLocal(key, null);
        }
        if (r.left() != LockTable.RELEASED) {
            return Release.NOT_HELD;
        }
        if (r.grantee() == null) {
            return Release.RELEASED;
        }
        if (r.grantToken() > 0) {
            // Granted outright to a wait of the releasing client (ours): the core passes the token
            // to that wait; nobody was notified.
            return Release.grantedTo(r.grantee(), r.grantToken(), r.grantWaitId());
        }
        // Handed to a waiter to claim: wake it here if it is one of ours (every release path, also
        // the core's quiet ones), and skip our own notification of it when it comes back, which
        // would wake it again late (an extra attempt if it waits anew by then). Other processes
        // learn of the grantee from the notification and wake nobody else.
        wakeLocal(key, r.grantee());
        return new Release(Release.Outcome.RELEASED, r.grantee());
    }

    @Override
    public void abandon(String name, String owner, long waitId) {
        checkOpen(name);
        if (table.queues()) {
            String key = Keys.of(name);
            call(name, "leaving the wait queue", c -> {
                table.abandon(c, key, owner, waitId, channel);
                return Boolean.TRUE; // no result
            });
        }
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        checkOpen(renewals.isEmpty() ? null : renewals.get(0).name());
        List<Renewal> lost = new ArrayList<>();
        for (int from = 0; from < renewals.size(); from += RENEW_BATCH) {
            List<Renewal> chunk = renewals.subList(from, Math.min(renewals.size(), from + RENEW_BATCH));
            List<LockTable.Hold> holds = new ArrayList<>(chunk.size());
            for (Renewal r : chunk) {
                holds.add(new LockTable.Hold(Keys.of(r.name()), r.owner(), micros(r.lease())));
            }
            String name = chunk.size() == 1 ? chunk.get(0).name() : null;
            boolean[] renewed = call(name, "renewing " + chunk.size() + " lease(s)", c -> table.renew(c, holds));
            for (int i = 0; i < renewed.length; i++) {
                if (!renewed[i]) {
                    lost.add(chunk.get(i));
                }
            }
        }
        return lost;
    }

    @Override
    public boolean forceRelease(String name) {
        String key = Keys.of(name);
        int r = call(name, "force-releasing", c -> table.forceRelease(c, key, channel));
        if (r >= 0 && !notifications) {
            wakeLocal(key, null);
        }
        return r == 1;
    }

    @Override
    public Optional<LockState> inspect(String name) {
        String key = Keys.of(name);
        return call(name, "inspecting", c -> table.inspect(c, key)).map(JdbcLockProvider::state);
    }

    /**
     * Lists held locks by name prefix, one query per page: keyset pagination on the row key (the
     * cursor is the last key of the page), names compared with {@code starts_with} (PostgreSQL)
     * or {@code LEFT} (H2), so no {@code LIKE} wildcard needs escaping. Waiters are counted on
     * PostgreSQL; H2 keeps no queue (-1).
     */
    @Override
    public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
        ListPage.checkArguments(prefix, pageSize);
        if (cursor != null && !cursor.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("cursor is not a listing cursor of this provider: '" + cursor + "'");
        }
        String after = cursor == null ? "" : cursor;
        List<LockTable.Listed> rows = call(null, "listing locks", c -> table.list(c, prefix, after, pageSize));
        List<HeldLock> page = new ArrayList<>(rows.size());
        for (LockTable.Listed row : rows) {
            page.add(new HeldLock(row.name(), state(row.held())));
        }
        return new ListPage(
                page, rows.size() < pageSize ? null : rows.get(rows.size() - 1).key());
    }

    private static LockState state(LockTable.Held h) {
        return new LockState(Map.of(h.owner(), h.holdCount()), ofMicros(h.remainingMicros()), h.token(), h.waiters());
    }

    @Override
    public Subscription subscribe(String name, WakeUpListener listener) {
        checkOpen(name);
        String key = Keys.of(name);
        listeners.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(listener);
        if (notifications) {
            // Returns once LISTEN is in place; if the database is unreachable, waiters poll meanwhile.
            listener().awaitListening(timeout);
        }
        return () -> listeners.computeIfPresent(key, (k, list) -> {
            list.remove(listener);
            return list.isEmpty() ? null : list;
        });
    }

    /** Every capability: fencing tokens, force release, explicit leases, inspection. */
    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        setup.lock();
        try {
            if (pgListener != null) {
                pgListener.close();
            }
        } finally {
            setup.unlock();
        }
        connections.close();
        listeners.clear();
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
        return table.statements();
    }

    /** Round trips so far with one named statement of the dialect's statements file (e.g. "acquire"). */
    long statements(String statement) {
        return table.statements(statement);
    }

    /** Whether release notifications are being received now. */
    boolean listening() {
        return wakeUpsLive();
    }

    // ---- internals ----

    @FunctionalInterface
    private interface Call<T> {
        T apply(Connection c) throws SQLException;
    }

    private <T> T call(@Nullable String name, String what, Call<T> call) {
        checkOpen(name);
        for (int attempt = 0; ; attempt++) {
            Connection c;
            try {
                c = connections.borrow();
            } catch (SQLException e) {
                throw Failures.map(name, what, e);
            }
            boolean broken = false;
            try {
                return call.apply(c);
            } catch (SQLException e) {
                broken = Failures.connectionLost(e);
                if (broken) {
                    // A restart breaks every idle connection: drop them rather than fail on each.
                    connections.discardIdle();
                    if (attempt == 0 && !closed) {
                        continue;
                    }
                }
                throw Failures.map(name, what, e);
            } finally {
                connections.giveBack(c, broken);
            }
        }
    }

    private PgListener listener() {
        PgListener l = pgListener;
        if (l != null) {
            return l;
        }
        setup.lock();
        try {
            if (pgListener == null) {
                checkOpen(null);
                pgListener = new PgListener(
                        connections,
                        channel,
                        new PgListener.Dispatcher() {
                            @Override
                            public void released(String payload) {
                                // "<lock_key>" (free), or "<lock_key>:<grantee>[ <origin>]" (handed over): keys
                                // are hex, owner ids have no spaces. A hand-over made by our own release was
                                // passed to our waiter by the caller already; waking it twice costs an attempt.
                                int colon = payload.indexOf(':');
                                if (colon < 0) {
                                    wakeLocal(payload, null);
                                    return;
                                }
                                int space = payload.indexOf(' ', colon);
                                if (space >= 0 && payload.substring(space + 1).equals(origin)) {
                                    return;
                                }
                                wakeLocal(
                                        payload.substring(0, colon),
                                        payload.substring(colon + 1, space < 0 ? payload.length() : space));
                            }

                            @Override
                            public void missed() {
                                for (List<WakeUpListener> list : listeners.values()) {
                                    for (WakeUpListener w : list) {
                                        w.missedNotifications();
                                    }
                                }
                            }
                        },
                        threadFactory,
                        timeout);
            }
            return pgListener;
        } finally {
            setup.unlock();
        }
    }

    private boolean wakeUpsLive() {
        PgListener l = pgListener;
        return l != null && l.listening();
    }

    private void wakeLocal(String key, @Nullable String grantee) {
        List<WakeUpListener> list = listeners.get(key);
        if (list != null) {
            for (WakeUpListener w : list) {
                w.released(grantee);
            }
        }
    }

    private void checkOpen(@Nullable String name) {
        if (closed) {
            throw new LockException(name, "the JdbcLockProvider is closed");
        }
    }

    private static long micros(Duration d) {
        // Rounded up: a lease is never shorter than asked.
        return d.getSeconds() * 1_000_000L + (d.getNano() + 999) / 1000;
    }

    private static Duration ofMicros(long micros) {
        return Duration.ofSeconds(micros / 1_000_000L, (micros % 1_000_000L) * 1000);
    }

    private void createSchema(Builder b) {
        String qualified = b.schema == null ? b.table : b.schema + "." + b.table;
        // The sequence first, so that it is not replaced as "<table>" + suffix.
        Map<String, String> replacements = new java.util.LinkedHashMap<>();
        replacements.put(DEFAULT_TABLE + SEQUENCE_SUFFIX, qualified + SEQUENCE_SUFFIX);
        replacements.put(DEFAULT_TABLE + WAITERS_SUFFIX, qualified + WAITERS_SUFFIX);
        for (String function : List.of("_acquire", "_release", "_abandon")) {
            replacements.put(DEFAULT_TABLE + function, qualified + function);
        }
        replacements.put(DEFAULT_TABLE, qualified);
        List<String> ddl = SqlFile.ddl(dialect.schemaResource(), replacements);
        call(null, "creating the lock table " + qualified, c -> {
            for (String sql : ddl) {
                for (int attempt = 0; ; attempt++) {
                    try (Statement s = c.createStatement()) {
                        s.setQueryTimeout((int) Math.max(1, (timeout.toMillis() + 999) / 1000));
                        s.execute(sql);
                        break;
                    } catch (SQLException e) {
                        // Two providers creating the table at once: PostgreSQL's IF NOT EXISTS can still
                        // collide on the catalog (unique_violation / duplicate_table); what exists is fine.
                        if ("23505".equals(e.getSQLState()) || "42P07".equals(e.getSQLState())) {
                            break;
                        }
                        // CREATE OR REPLACE FUNCTION racing another: "tuple concurrently updated"; once more.
                        if (attempt == 0 && "XX000".equals(e.getSQLState())) {
                            continue;
                        }
                        throw e;
                    }
                }
            }
            return Boolean.TRUE; // no result
        });
        LOG.log(System.Logger.Level.DEBUG, "lock table {0} is in place", qualified);
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
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** A JDBC URL; the provider then keeps a small pool of its own ({@link #maxConnections(int)}). */
        public Builder jdbcUrl(String jdbcUrl) {
            if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:")) {
                throw new IllegalArgumentException("jdbcUrl must start with jdbc: (was "
                        + (jdbcUrl == null ? null : "'" + redact(jdbcUrl) + "'") + ")");
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
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /** The schema of the lock table. Default: none (the connection's search path / default schema). */
        public Builder schema(String schema) {
            this.schema = identifier(schema, "schema", MAX_IDENTIFIER);
            return this;
        }

        /**
         * The lock table's name (letters, digits and underscores, at most 53 characters: the token
         * sequence is named {@code <table>_token_seq}). Default: {@link #DEFAULT_TABLE}.
         */
        public Builder table(String table) {
            this.table = identifier(table, "table", MAX_IDENTIFIER - SEQUENCE_SUFFIX.length());
            return this;
        }

        /** Whether {@link #build()} creates the lock table and sequence when missing. Default: false. */
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
            this.timeout = positive(timeout, "timeout");
            return this;
        }

        /** The longest a waiter sleeps between attempts when no notification can wake it. Default: {@link #DEFAULT_POLL_INTERVAL}. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = positive(pollInterval, "pollInterval");
            return this;
        }

        /**
         * How long a waiter has to claim a lock a release handed to it (PostgreSQL); a waiter that
         * is gone costs this long before anyone may take the lock. Default: {@link #DEFAULT_CLAIM_TIMEOUT}.
         */
        public Builder claimTimeout(Duration claimTimeout) {
            this.claimTimeout = positive(claimTimeout, "claimTimeout");
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
         * Whether waiters on PostgreSQL are woken by LISTEN/NOTIFY (needs the PostgreSQL JDBC driver
         * and a session-mode connection; not through PgBouncer in transaction mode). Default: true;
         * false: waiters poll.
         */
        public Builder listen(boolean listen) {
            this.listen = listen;
            return this;
        }

        /** Makes the LISTEN thread, e.g. a container-managed factory. Default: daemon threads named lockkit-jdbc-listen-N. */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * The provider. Touches the database only to detect the dialect of a DataSource (when not
         * given) and to create the schema (when asked).
         *
         * @throws IllegalArgumentException when neither or both of dataSource and jdbcUrl are set, or
         *     the dialect cannot be told
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
            if (jdbcUrl != null) {
                if (d == null) {
                    d = JdbcDialect.detect(jdbcUrl);
                    if (d == null) {
                        throw new IllegalArgumentException("jdbcUrl names no supported database (PostgreSQL, H2): '"
                                + redact(jdbcUrl) + "'; set dialect(...) if it speaks one of their dialects");
                    }
                }
                Properties props = new Properties();
                if (user != null) {
                    props.setProperty("user", user);
                    if (password != null) {
                        props.setProperty("password", password);
                    }
                }
                long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
                if (d == JdbcDialect.POSTGRESQL && jdbcUrl.startsWith("jdbc:postgresql:")) {
                    props.setProperty("connectTimeout", Long.toString(seconds));
                    props.setProperty("loginTimeout", Long.toString(seconds));
                    props.setProperty("tcpKeepAlive", "true");
                    // A query timeout sends a cancel request, and the statement waits for it to be
                    // delivered: bounded by this, else 10 s against a stalled server.
                    props.setProperty("cancelSignalTimeout", Long.toString(seconds));
                }
                // The socket timeout backs up the query timeout for a database that stopped answering
                // altogether (a query timeout's cancel request is not answered either).
                connections =
                        ConnectionSource.of(jdbcUrl, props, maxConnections, timeout, timeout.plusSeconds(seconds));
            } else {
                connections =
                        ConnectionSource.of(Objects.requireNonNull(dataSource, "dataSource")); // exactly one is set
                if (d == null) {
                    d = detect(connections);
                }
            }
            JdbcLockProvider provider = new JdbcLockProvider(this, connections, d);
            if (createSchema) {
                try {
                    provider.createSchema(this);
                } catch (RuntimeException e) {
                    provider.close();
                    throw e;
                }
            }
            return provider;
        }

        private static JdbcDialect detect(ConnectionSource connections) {
            Connection c;
            try {
                c = connections.borrow();
            } catch (SQLException e) {
                throw Failures.map(null, "detecting the database of the DataSource (set dialect(...) to skip this)", e);
            }
            try {
                String product = c.getMetaData().getDatabaseProductName();
                JdbcDialect d = JdbcDialect.detect(product);
                if (d == null) {
                    throw new IllegalArgumentException(
                            "dataSource is a " + product
                                    + " database; supported are PostgreSQL and H2 (set dialect(...) if it speaks one of their dialects)");
                }
                return d;
            } catch (SQLException e) {
                throw Failures.map(null, "detecting the database of the DataSource", e);
            } finally {
                connections.giveBack(c, false);
            }
        }

        private static String identifier(String value, String argument, int max) {
            if (value == null || !IDENTIFIER.matcher(value).matches() || value.length() > max) {
                throw new IllegalArgumentException(argument + " must be 1.." + max
                        + " letters, digits or underscores, not starting with a digit (was "
                        + (value == null ? null : "'" + value + "'") + ")");
            }
            return value;
        }

        private static Duration positive(Duration d, String argument) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(argument + " must be positive, was " + d);
            }
            if (d.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException(argument + " must be at most a day, was " + d);
            }
            return d;
        }

        private static String redact(String url) {
            return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
        }
    }
}
