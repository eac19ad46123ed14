package io.lockkit.jdbc;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.ProviderSettings;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The {@code jdbc} provider for containers and tools: builds a {@link JdbcLockProvider} from the
 * {@code lockkit.jdbc.*} keys ({@link #settings()}) on {@code lockkit.jdbc.url} (with a small pool
 * of its own), else on the {@code DataSource} the environment knows by the name in {@code
 * lockkit.jdbc.datasource}, else on the environment's default {@code DataSource}. Found by {@link
 * java.util.ServiceLoader}; stateless and thread-safe.
 */
// Design notes.
// - Setting both lockkit.jdbc.url and lockkit.jdbc.datasource is an error, as is finding none of the
//   three databases; the user and password keys apply to the URL only.
// - The caller's transaction: a container's DataSource usually enlists its connections in the
//   current transaction, and a lock's statement must never be part of it (a rollback would undo the
//   lock row, a commit would publish it late), so a provider over the environment's DataSource is
//   handed to environment.outsideTransactions. The provider's own pool (a URL) is never enlisted.
public final class JdbcLockProviderFactory implements LockProviderFactory {

    static final String URL = "lockkit.jdbc.url";
    static final String USER = "lockkit.jdbc.user";
    static final String PASSWORD = "lockkit.jdbc.password";
    static final String DATASOURCE = "lockkit.jdbc.datasource";
    static final String SCHEMA = "lockkit.jdbc.schema";
    static final String TABLE = "lockkit.jdbc.table";
    static final String CREATE_SCHEMA = "lockkit.jdbc.create-schema";
    static final String TIMEOUT = "lockkit.jdbc.timeout";
    static final String LISTEN = "lockkit.jdbc.listen";

    private static final List<ProviderSetting> SETTINGS = List.of(
            new ProviderSetting(
                    URL,
                    null,
                    "The lock database's JDBC URL (the provider keeps a small pool of its own); unset: the DataSource"
                            + " named by lockkit.jdbc.datasource, else the application's default DataSource."),
            new ProviderSetting(USER, null, "The user for lockkit.jdbc.url."),
            new ProviderSetting(PASSWORD, null, "The password for lockkit.jdbc.url."),
            new ProviderSetting(
                    DATASOURCE,
                    null,
                    "The DataSource to use: a @Named DataSource bean's name (a Quarkus named datasource), else a"
                            + " JNDI name, e.g. java:comp/DefaultDataSource."),
            new ProviderSetting(SCHEMA, "the connection's", "The schema of the lock table."),
            new ProviderSetting(TABLE, JdbcLockProvider.DEFAULT_TABLE, "The lock table's name."),
            new ProviderSetting(
                    CREATE_SCHEMA,
                    "false",
                    "Whether the provider creates its table at start, and upgrades it when the recorded schema"
                            + " version is older than the library's."),
            new ProviderSetting(TIMEOUT, "2s", "How long a statement may take (whole seconds, rounded up)."),
            new ProviderSetting(
                    LISTEN,
                    "true",
                    "PostgreSQL: wake waiters by LISTEN/NOTIFY; false behind a transaction-mode pooler, where"
                            + " waiters poll."));

    /** For {@link java.util.ServiceLoader}. */
    public JdbcLockProviderFactory() {}

    @Override
    public String name() {
        return "jdbc";
    }

    @Override
    public List<ProviderSetting> settings() {
        return SETTINGS;
    }

    /** The databases lock-jdbc speaks: PostgreSQL, MariaDB (and MySQL through its dialect), H2. */
    @Override
    public Set<String> uriSchemes() {
        return Set.of("jdbc:postgresql", "jdbc:mariadb", "jdbc:mysql", "jdbc:h2");
    }

    @Override
    public Optional<String> uriKey() {
        return Optional.of(URL);
    }

    /**
     * @throws IllegalArgumentException naming the key and its source, for a wrong value or keys
     *     that contradict each other
     * @throws IllegalStateException when no database is configured, or the environment's lookup
     *     finds none, naming the keys; or when no JDBC driver on the class path takes
     *     {@code lockkit.jdbc.url}, naming the driver to add
     * @throws BackendUnavailableException when the database is needed at once (dialect detection,
     *     {@code lockkit.jdbc.create-schema=true}) and does not answer; another {@link LockException}
     *     when it refuses (credentials, rights)
     */
    @Override
    public LockProvider create(ProviderSettings settings, ProviderEnvironment environment) {
        JdbcLockProvider.Builder b = JdbcLockProvider.builder();
        Optional<String> url = settings.string(URL);
        Optional<String> name = settings.string(DATASOURCE);
        if (url.isPresent() && name.isPresent()) {
            throw new IllegalArgumentException(settings.name(URL) + " and " + settings.name(DATASOURCE) + " (from "
                    + settings.origin() + ") are both set; keep one");
        }
        boolean containerDataSource = url.isEmpty();
        if (url.isPresent()) {
            settings.apply(URL, () -> b.jdbcUrl(url.get()));
            settings.string(USER)
                    .ifPresent(user -> settings.apply(
                            USER,
                            () -> b.credentials(user, settings.string(PASSWORD).orElse(null))));
        } else {
            for (String key : List.of(USER, PASSWORD)) {
                if (settings.string(key).isPresent()) {
                    throw new IllegalArgumentException(settings.name(key) + " (from " + settings.origin()
                            + ") applies to " + settings.name(URL) + " only; a DataSource has its own credentials");
                }
            }
            b.dataSource(
                    name.isPresent()
                            ? lookup(settings, environment, name.get())
                            : defaultDataSource(settings, environment));
        }
        settings.string(SCHEMA).ifPresent(v -> settings.apply(SCHEMA, () -> b.schema(v)));
        settings.string(TABLE).ifPresent(v -> settings.apply(TABLE, () -> b.table(v)));
        settings.bool(CREATE_SCHEMA).ifPresent(b::createSchema);
        settings.bool(LISTEN).ifPresent(b::listen);
        settings.duration(TIMEOUT).ifPresent(v -> settings.apply(TIMEOUT, () -> b.timeout(v)));
        environment.threadFactory().ifPresent(b::threadFactory);
        LockProvider provider = build(b, settings);
        return containerDataSource ? environment.outsideTransactions(provider) : provider;
    }

    /** {@code b} built, its failures told in terms of the settings. */
    private LockProvider build(JdbcLockProvider.Builder b, ProviderSettings settings) {
        try {
            return b.build();
        } catch (BackendUnavailableException e) {
            // A database that cannot be reached (dialect detection, lockkit.jdbc.create-schema=true).
            throw new BackendUnavailableException(
                    null,
                    "lockkit: the lock backend did not answer at application start: " + describeTarget(settings) + ": "
                            + e.getMessage() + ". Fix the setting or start the database",
                    e);
        } catch (IllegalArgumentException e) {
            // The database the key names is not one lockkit speaks (the builder names its argument).
            String key = settings.string(URL).isPresent()
                    ? URL
                    : settings.string(DATASOURCE).isPresent() ? DATASOURCE : null;
            if (key == null) {
                throw e;
            }
            throw new IllegalArgumentException(
                    settings.name(key) + " (from " + settings.origin() + "): " + e.getMessage(), e);
        } catch (IllegalStateException e) {
            // No driver on the class path takes the URL.
            throw new IllegalStateException("lockkit: " + describeTarget(settings) + ": " + e.getMessage(), e);
        } catch (LockException e) {
            // It answered with a refusal: credentials, rights, a schema it cannot create.
            throw new LockException(
                    null,
                    "lockkit: the lock backend refused the provider at application start: " + describeTarget(settings)
                            + ": " + e.getMessage(),
                    e);
        }
    }

    /** The key that names the database, or what is used when none does. */
    @Override
    public String describeTarget(ProviderSettings settings) {
        if (settings.string(URL).isPresent()) {
            return settings.describe(URL, "");
        }
        if (settings.string(DATASOURCE).isPresent()) {
            return settings.describe(DATASOURCE, "");
        }
        return "the application's javax.sql.DataSource bean (or set " + settings.name(DATASOURCE) + " or "
                + settings.name(URL) + ")";
    }

    private static DataSource lookup(ProviderSettings settings, ProviderEnvironment environment, String name) {
        Optional<DataSource> found;
        try {
            found = environment.resource(DataSource.class, name);
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "lockkit: " + settings.describe(DATASOURCE, "")
                            + " names no DataSource the application can look up: " + e.getMessage(),
                    e);
        }
        return found.orElseThrow(() -> new IllegalStateException("lockkit: " + settings.describe(DATASOURCE, "")
                + " names a DataSource, but nothing here looks names up; set " + settings.name(URL) + " instead"));
    }

    private static DataSource defaultDataSource(ProviderSettings settings, ProviderEnvironment environment) {
        Optional<DataSource> found;
        try {
            found = environment.defaultInstance(DataSource.class);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(
                    "lockkit: " + settings.name("lockkit.provider") + "=jdbc finds several @Default"
                            + " javax.sql.DataSource beans; name one with " + settings.name(DATASOURCE) + " or set "
                            + settings.name(URL) + " (" + e.getMessage() + ")",
                    e);
        }
        return found.orElseThrow(() -> new IllegalStateException("lockkit: " + settings.name("lockkit.provider")
                + "=jdbc needs a database: a @Default javax.sql.DataSource bean, a DataSource named in "
                + settings.name(DATASOURCE) + ", or " + settings.name(URL)));
    }

    @Override
    public String toString() {
        return "JdbcLockProviderFactory[jdbc]";
    }
}
