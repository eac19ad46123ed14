package io.lockkit.jdbc.internal;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import io.lockkit.jdbc.LockSchemaException;
import io.lockkit.spi.support.Causes;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What lock-jdbc knows of one database: its statements (the {@code statements.sql} of its jar folder,
 * one section per statement class: {@link AcquireStatement}, {@link ReleaseStatement}, ...), how
 * they run, its migrations, the SQLStates that mean "unavailable" or "schema missing", its driver
 * settings and its wake-ups. One instance per provider (it carries the provider's table names and
 * settings); thread-safe. A new database is a subclass, its SQL files, and one constant of
 * {@code JdbcDialect}.
 */
public abstract class Dialect {

    /** A call of the provider, with the provider-wide values the statements take besides the call's own. */
    public record Context(
            String table, Duration timeout, Duration claim, String channel, String origin, Duration pollInterval) {

        /**
         * The context of a new provider: the table qualified by its schema (if any), the notification
         * channel named after both, and a random origin id for its notifications.
         */
        public static Context of(
                @Nullable String schema, String table, Duration timeout, Duration claim, Duration pollInterval) {
            String channel = (schema == null ? table : schema + "_" + table).toLowerCase(Locale.ROOT);
            return new Context(
                    schema == null ? table : schema + "." + table,
                    timeout,
                    claim,
                    channel.substring(0, Math.min(channel.length(), Options.MAX_IDENTIFIER)),
                    Long.toString(ORIGINS.nextLong() & Long.MAX_VALUE, 36),
                    pollInterval);
        }

        /** The namespace of the acquisitions' gate and the migration lock: one per table. */
        public int gate() {
            return ("lockkit:" + table).hashCode();
        }

        /** The statement timeout in whole seconds, rounded up (JDBC's unit). */
        public int timeoutSeconds() {
            return (int) Math.max(1, (timeout.toMillis() + 999) / 1000);
        }

        /** How long a statement may wait for a row lock on the server. */
        public int lockTimeoutMs() {
            return timeoutSeconds() * 1000;
        }
    }

    /** How a statement's result is read. */
    @FunctionalInterface
    public interface Decoder<R> {
        R decode(ResultSet rs) throws SQLException;
    }

    /** The migration files every dialect has (each dialect's own SQL), in version order. */
    protected static final List<String> MIGRATIONS =
            List.of("V1__lockkit_locks.sql", "V2__lockkit_holders.sql", "V3__lockkit_fair_queue.sql");

    private static final SecureRandom ORIGINS = new SecureRandom();
    private static final Pattern MIGRATION = Pattern.compile("/V(\\d+)__[^/]+\\.sql$");

    protected final Context context;
    private final String folder;
    private final Map<String, Set<String>> unusedArguments;
    private final List<String> migrations;
    private final Map<String, NamedSql> statements;
    private final LongAdder roundTrips = new LongAdder();
    private final ConcurrentHashMap<String, LongAdder> byStatement = new ConcurrentHashMap<>();

    /**
     * A dialect whose SQL is in the jar folder {@code folder}, with its {@link #unusedArguments()}
     * and its migration files' names in version order ({@code V<n>__<description>.sql}, under
     * {@code <folder>/migration}).
     */
    protected Dialect(
            String folder, Context context, Map<String, Set<String>> unusedArguments, List<String> migrations) {
        this.folder = folder;
        this.context = context;
        this.unusedArguments = Map.copyOf(unusedArguments);
        this.migrations =
                migrations.stream().map(m -> folder + "/migration/" + m).toList();
        Map<String, NamedSql> parsed = new LinkedHashMap<>();
        SqlFile.statements(folder + "/statements.sql", context.table())
                .forEach((name, text) -> parsed.put(name, NamedSql.parse(name, text)));
        this.statements = java.util.Collections.unmodifiableMap(parsed);
    }

    /** The provider's table names and settings. */
    public final Context context() {
        return context;
    }

    /** The jar folder of the dialect's SQL, e.g. {@code /io/lockkit/jdbc/postgresql}. */
    public final String folder() {
        return folder;
    }

    /** The dialect's statements by name, as its statements file defines them. */
    public final Map<String, NamedSql> statements() {
        return statements;
    }

    /**
     * Per statement name: the argument components its SQL takes no parameter for, because the
     * database does that part otherwise (e.g. no queue on H2, no notification channel on MariaDB).
     * {@code SqlContractTest}: the SQL's parameters plus these are exactly the record's components.
     */
    public final Map<String, Set<String>> unusedArguments() {
        return unusedArguments;
    }

    /** The migration files, in version order ({@code <folder>/migration/V<n>__<description>.sql}). */
    public final List<String> migrations() {
        return migrations;
    }

    // ---- migrations ----

    /** The version of a migration file, from its name ({@code V<n>__...}). */
    public static int version(String migration) {
        Matcher m = MIGRATION.matcher(migration);
        if (!m.find()) {
            throw new IllegalArgumentException("not a migration file name: " + migration);
        }
        return Integer.parseInt(m.group(1));
    }

    /** The version the newest migration file brings the schema to. */
    public final int latestVersion() {
        List<String> all = migrations();
        return version(all.get(all.size() - 1));
    }

    /** The version table of the configured lock table. */
    protected final String versionTable() {
        return context.table() + "_version";
    }

    /**
     * The schema version installed, from the version table: one statement, which fails with a
     * schema state ({@link #schemaMissing}) when there is no version table.
     */
    public final int installedVersion(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT max(version) FROM " + versionTable())) {
            ps.setQueryTimeout(context.timeoutSeconds());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : 0;
            }
        }
    }

    /**
     * Brings the schema from version {@code installed} to {@link #latestVersion()}, taking the
     * dialect's migration lock where it has one (and reading the version again under it). Default:
     * no lock (every statement of a migration is idempotent).
     */
    public void migrate(Connection c, int installed) throws SQLException {
        runMigrations(c, installed);
    }

    /** Runs every statement of the migrations above {@code installed}, in order. */
    protected final void runMigrations(Connection c, int installed) throws SQLException {
        for (String migration : migrations()) {
            if (version(migration) <= installed) {
                continue;
            }
            for (String sql : SqlFile.statementsOf(migration, context.table())) {
                try (java.sql.Statement s = c.createStatement()) {
                    s.setQueryTimeout(Math.max(30, context.timeoutSeconds()));
                    s.execute(sql);
                }
            }
        }
    }

    // ---- operations, each on a connection in autocommit that the caller borrowed ----
    // The defaults call the statements file's routines, which bound their own lock waits (no JDBC
    // query timeout on them), and renew in one batch; a dialect overrides what it does otherwise.

    public AcquireStatement.Reply acquire(Connection c, AcquireStatement.Args args) throws SQLException {
        return run(c, AcquireStatement.NAME, args, AcquireStatement::decode, false);
    }

    public ReleaseStatement.Reply release(Connection c, ReleaseStatement.Args args) throws SQLException {
        return run(c, ReleaseStatement.NAME, args, ReleaseStatement::decode, false);
    }

    /** Leaves the queue (only called where the dialect {@link #queues()}). */
    public AbandonStatement.Reply abandon(Connection c, AbandonStatement.Args args) throws SQLException {
        return run(c, AbandonStatement.NAME, args, AbandonStatement::decode, false);
    }

    /** Renews every hold; returns for each whether it still existed, in the order given. */
    public boolean[] renew(Connection c, List<RenewStatement.Hold> holds) throws SQLException {
        return renewInBatch(c, holds);
    }

    public ForceReleaseStatement.Reply forceRelease(Connection c, ForceReleaseStatement.Args args) throws SQLException {
        return run(c, ForceReleaseStatement.NAME, args, ForceReleaseStatement::decode);
    }

    public InspectStatement.Reply inspect(Connection c, InspectStatement.Args args) throws SQLException {
        return run(c, InspectStatement.NAME, args, InspectStatement::decode);
    }

    public List<ListStatement.Row> list(Connection c, ListStatement.Args args) throws SQLException {
        return run(c, ListStatement.NAME, args, ListStatement::decode);
    }

    /** Whether the dialect queues waiters and hands locks over (so that {@link #abandon} matters). */
    public boolean queues() {
        return true;
    }

    /** Whether {@link #abandon} matters: where the dialect {@link #queues()}, or queues some waiters (H2). */
    public boolean abandons() {
        return queues();
    }

    /** Prepares {@code c} for a transaction of {@link SharedHolds} (default: nothing; READ COMMITTED is the default). */
    void beginShared(Connection c) throws SQLException {}

    // ---- wake-ups ----

    /**
     * This dialect's wake-ups from other clients' releases, started now, or null when it has none
     * (waiters of other clients then poll).
     */
    public abstract @Nullable WakeUpSource wakeUps(
            ConnectionSource connections, WakeUpSource.Dispatcher dispatcher, ThreadFactory threads);

    // ---- connections and failures ----

    /** The driver settings for the provider's own connections (a JDBC URL), from the timeout in whole seconds. */
    public abstract void driverProperties(String url, int timeoutSeconds, Properties properties);

    /**
     * Checks that a JDBC driver on the class path takes {@code url}, so that a missing driver is
     * told as such when the provider is built, not as an unreachable database ("No suitable driver
     * found") at its first call.
     *
     * @throws IllegalStateException naming the URL's {@code jdbc:<subprotocol>:} and the driver to add
     */
    public final void requireDriver(String url) {
        if (driverTakes(url)) {
            return;
        }
        int colon = url.indexOf(':', "jdbc:".length());
        String scheme = colon < 0 ? url : url.substring(0, colon + 1);
        String artifact = driverArtifact(url);
        throw new IllegalStateException("no JDBC driver for " + scheme + " on the class path; add "
                + (artifact != null ? artifact : "the database's JDBC driver"));
    }

    /** Whether a registered JDBC driver takes {@code url} (a dialect may know one that needs a driver property for it). */
    protected boolean driverTakes(String url) {
        try {
            DriverManager.getDriver(url);
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** The Maven coordinates of the JDBC driver for {@code url}, for messages; null when not known. */
    protected @Nullable String driverArtifact(String url) {
        return null;
    }

    /** SQLStates (or vendor codes as "#<code>") of a missing table, sequence, function or procedure. */
    protected abstract Set<String> schemaStates();

    /** SQLStates (or vendor codes as "#<code>") of a database that is shutting down, overloaded, or timed out. */
    protected abstract Set<String> unavailableStates();

    /** Whether the connection is broken: a fresh connection may succeed where this one failed. */
    public boolean connectionLost(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLNonTransientConnectionException
                || e instanceof SQLTransientConnectionException
                || e instanceof SQLRecoverableException
                || (state != null && state.startsWith("08"));
    }

    /** Whether {@code e} says the lock table (or a part of the schema) is missing. */
    public final boolean schemaMissing(SQLException e) {
        return matches(e, schemaStates());
    }

    /**
     * The lockkit exception for a failed call on lock {@code name} (null: no single lock): a
     * {@link BackendUnavailableException} when the database is unreachable, gone or too slow, a
     * {@link LockSchemaException} when the schema is missing, else a plain {@link LockException}.
     */
    public final LockException failure(@Nullable String name, String what, SQLException e) {
        String state = e.getSQLState();
        String detail = what + " failed: " + Causes.describe(e) + (state == null ? "" : " [SQLState " + state + "]");
        if (connectionLost(e) || e instanceof SQLTimeoutException || matches(e, unavailableStates())) {
            return new BackendUnavailableException(name, detail, e);
        }
        if (schemaMissing(e)) {
            return new LockSchemaException(
                    name,
                    detail + "; create the lock table with the migrations in the lock-jdbc jar (" + folder
                            + "/migration), or build the provider with createSchema(true)",
                    e);
        }
        return new LockException(name, detail, e);
    }

    private static boolean matches(SQLException e, Set<String> states) {
        return (e.getSQLState() != null && states.contains(e.getSQLState())) || states.contains("#" + e.getErrorCode());
    }

    // ---- running statements ----

    /** The named statement prepared (one round trip when run: a batch counts once). */
    protected final PreparedStatement prepare(Connection c, String name, boolean timed) throws SQLException {
        NamedSql sql = statement(name);
        PreparedStatement ps = c.prepareStatement(sql.jdbc());
        if (timed) {
            ps.setQueryTimeout(context.timeoutSeconds());
        }
        count(name);
        return ps;
    }

    /** The named statement. */
    protected final NamedSql statement(String name) {
        NamedSql sql = statements.get(name);
        if (sql == null) {
            throw new IllegalStateException(folder + "/statements.sql defines no statement " + name);
        }
        return sql;
    }

    /** Runs the named statement with {@code args} bound by name, with a query timeout, and decodes its result. */
    protected final <R> R run(Connection c, String name, Record args, Decoder<R> decoder) throws SQLException {
        return run(c, name, args, decoder, true);
    }

    /**
     * Runs the named statement with {@code args} bound by name and decodes its result; {@code timed}
     * false: without a JDBC query timeout, for a routine that bounds its own lock waits.
     */
    protected final <R> R run(Connection c, String name, Record args, Decoder<R> decoder, boolean timed)
            throws SQLException {
        try (PreparedStatement ps = prepare(c, name, timed)) {
            statement(name).bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                return decoder.decode(rs);
            }
        }
    }

    /** Runs the named statement (a step of an operation) with {@code args}; returns the rows it changed. */
    protected final int update(Connection c, String name, Record args) throws SQLException {
        try (PreparedStatement ps = prepare(c, name, true)) {
            statement(name).bind(ps, args);
            return ps.executeUpdate();
        }
    }

    /**
     * Renews {@code holds} with one JDBC batch of the {@code renew} statement (one round trip; the
     * driver must report each statement's rows matched).
     */
    protected final boolean[] renewInBatch(Connection c, List<RenewStatement.Hold> holds) throws SQLException {
        int[] counts;
        try (PreparedStatement ps = prepare(c, RenewStatement.NAME, true)) {
            NamedSql sql = statement(RenewStatement.NAME);
            for (RenewStatement.Hold h : holds) {
                sql.bind(ps, h);
                ps.addBatch();
            }
            counts = ps.executeBatch();
        }
        boolean[] out = new boolean[holds.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = counts[i] > 0 || counts[i] == java.sql.Statement.SUCCESS_NO_INFO;
        }
        return out;
    }

    private void count(String name) {
        roundTrips.increment();
        byStatement.computeIfAbsent(name, k -> new LongAdder()).increment();
    }

    /** Round trips made so far, for tests. */
    public final long roundTrips() {
        return roundTrips.sum();
    }

    /** Round trips made so far with the named statement, for tests. */
    public final long roundTrips(String statement) {
        LongAdder n = byStatement.get(statement);
        return n == null ? 0 : n.sum();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName();
    }
}
