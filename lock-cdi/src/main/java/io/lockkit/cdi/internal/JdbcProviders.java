package io.lockkit.cdi.internal;

import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.jdbc.JdbcLockProvider;
import io.lockkit.spi.LockProvider;
import jakarta.enterprise.inject.Instance;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The only class touching lock-jdbc (an optional dependency); loaded only for
 * {@code lockkit.provider=jdbc}. Builds the provider on the application's database.
 */
// Design notes.
// - Which database, in this order: lockkit.jdbc.url (the provider's own small pool), else the
//   DataSource named by lockkit.jdbc.datasource (JNDI), else the application's @Default
//   javax.sql.DataSource bean; setting both keys is an error, as is finding none of the three.
// - The caller's transaction: a container's DataSource usually enlists its connections in the
//   current JTA transaction, and a lock's statement must never be part of it (a rollback would undo
//   the lock row, a commit would publish it late). When a TransactionManager is found, every call of
//   the provider on an application thread runs with the caller's transaction suspended
//   (JtaSuspension); without one, the provider insists on autocommit connections and says so.
final class JdbcProviders {

    private JdbcProviders() {}

    /** What the start-up check names when the database does not answer. */
    static String describe(LockkitConfig config) {
        if (config.string(LockkitConfig.JDBC_URL).isPresent()) {
            return config.describe(LockkitConfig.JDBC_URL, "");
        }
        if (config.string(LockkitConfig.JDBC_DATASOURCE).isPresent()) {
            return config.describe(LockkitConfig.JDBC_DATASOURCE, "");
        }
        return "the application's javax.sql.DataSource bean (or set " + LockkitConfig.JDBC_DATASOURCE + " or "
                + LockkitConfig.JDBC_URL + ")";
    }

    static LockProvider create(LockkitConfig config, Instance<Object> beans, @Nullable ThreadFactory threadFactory) {
        JdbcLockProvider.Builder b = JdbcLockProvider.builder();
        String url = config.string(LockkitConfig.JDBC_URL).orElse(null);
        String jndi = config.string(LockkitConfig.JDBC_DATASOURCE).orElse(null);
        if (url != null && jndi != null) {
            throw new IllegalArgumentException(LockkitConfig.JDBC_URL + " and " + LockkitConfig.JDBC_DATASOURCE
                    + " (from " + config.origin() + ") are both set; keep one");
        }
        String where = describe(config);
        if (url != null) {
            set(config, LockkitConfig.JDBC_URL, () -> b.jdbcUrl(url));
            config.string(LockkitConfig.JDBC_USER)
                    .ifPresent(user -> set(
                            config,
                            LockkitConfig.JDBC_USER,
                            () -> b.credentials(
                                    user,
                                    config.string(LockkitConfig.JDBC_PASSWORD).orElse(null))));
        } else {
            for (String key : new String[] {LockkitConfig.JDBC_USER, LockkitConfig.JDBC_PASSWORD}) {
                if (config.string(key).isPresent()) {
                    throw new IllegalArgumentException(key + " (from " + config.origin() + ") applies to "
                            + LockkitConfig.JDBC_URL + " only; a DataSource has its own credentials");
                }
            }
            DataSource dataSource = jndi != null ? lookup(config, jndi) : bean(beans);
            b.dataSource(dataSource);
        }
        config.string(LockkitConfig.JDBC_SCHEMA)
                .ifPresent(v -> set(config, LockkitConfig.JDBC_SCHEMA, () -> b.schema(v)));
        config.string(LockkitConfig.JDBC_TABLE).ifPresent(v -> set(config, LockkitConfig.JDBC_TABLE, () -> b.table(v)));
        config.bool(LockkitConfig.JDBC_CREATE_SCHEMA).ifPresent(b::createSchema);
        config.bool(LockkitConfig.JDBC_LISTEN).ifPresent(b::listen);
        config.duration(LockkitConfig.JDBC_TIMEOUT)
                .ifPresent(v -> set(config, LockkitConfig.JDBC_TIMEOUT, () -> b.timeout(v)));
        if (threadFactory != null) {
            b.threadFactory(threadFactory);
        }
        LockProvider provider;
        try {
            provider = b.build();
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            // A database that cannot be reached (dialect detection, lockkit.jdbc.create-schema=true).
            throw new IllegalStateException(
                    "lockkit: the lock database did not answer at application start: " + where
                            + ": " + e.getMessage() + ". Fix the setting or start the database; "
                            + LockkitConfig.STARTUP
                            + "=lazy starts without it",
                    e);
        }
        return Transactions.suspending(provider, beans);
    }

    @SuppressWarnings("BanJNDI") // looks up a fixed or configured name the application chose, never request input
    private static DataSource lookup(LockkitConfig config, String name) {
        Object found;
        try {
            found = new javax.naming.InitialContext().lookup(name);
        } catch (javax.naming.NamingException | RuntimeException e) {
            throw new IllegalStateException(
                    "lockkit: " + config.describe(LockkitConfig.JDBC_DATASOURCE, "")
                            + " names no DataSource the application can look up: " + e,
                    e);
        }
        if (!(found instanceof DataSource ds)) {
            throw new IllegalStateException(
                    "lockkit: " + config.describe(LockkitConfig.JDBC_DATASOURCE, "") + " names a "
                            + (found == null ? "null" : found.getClass().getName()) + ", not a javax.sql.DataSource");
        }
        return ds;
    }

    private static DataSource bean(Instance<Object> beans) {
        Instance<DataSource> candidates = beans.select(DataSource.class);
        if (candidates.isAmbiguous()) {
            throw new IllegalStateException("lockkit: lockkit.provider=jdbc finds several @Default javax.sql.DataSource"
                    + " beans; name one with " + LockkitConfig.JDBC_DATASOURCE + " (JNDI) or set "
                    + LockkitConfig.JDBC_URL);
        }
        if (!candidates.isResolvable()) {
            throw new IllegalStateException("lockkit: lockkit.provider=jdbc needs a database: a @Default"
                    + " javax.sql.DataSource bean, a JNDI name in " + LockkitConfig.JDBC_DATASOURCE + ", or "
                    + LockkitConfig.JDBC_URL);
        }
        return candidates.get();
    }

    /** Runs a builder setter, naming the configuration key when it rejects the value. */
    private static void set(LockkitConfig config, String key, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " (from " + config.origin() + "): " + e.getMessage(), e);
        }
    }
}
