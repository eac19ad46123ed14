package io.lockkit.jdbc;

import io.lockkit.jdbc.internal.Dialect;
import io.lockkit.jdbc.internal.H2Dialect;
import io.lockkit.jdbc.internal.MariaDbDialect;
import io.lockkit.jdbc.internal.PostgresDialect;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The SQL dialects {@link JdbcLockProvider} speaks. Each has its SQL in the jar: the migrations that
 * create and upgrade its lock table ({@link #migrationFolder()}, for Flyway or Liquibase, or
 * {@link JdbcLockProvider.Builder#createSchema(boolean) createSchema(true)}) and the statements the
 * provider runs.
 */
public enum JdbcDialect {

    /**
     * PostgreSQL 12 or later: one statement per operation, a wait queue with hand-over, release
     * notifications through LISTEN/NOTIFY when the PostgreSQL JDBC driver is present.
     */
    POSTGRESQL("postgresql", "PostgreSQL"),

    /** H2 2.x: one short transaction per acquisition; waiters of other clients poll. */
    H2("h2", "H2"),

    /**
     * MariaDB 10.6 or later, and MySQL 8 by design ({@code jdbc:mariadb:} and {@code jdbc:mysql:}
     * URLs): one statement per operation, a wait queue with hand-over, and one poller per provider
     * that wakes only the waiter a lock was handed to (these databases have no LISTEN/NOTIFY).
     */
    MARIADB("mariadb", "MariaDB", "mysql", "MySQL");

    private final String id;
    private final String product;
    /** Another URL scheme and product name that speak this dialect, or "". */
    private final String alias;

    private final String aliasProduct;

    JdbcDialect(String id, String product) {
        this(id, product, "", "");
    }

    JdbcDialect(String id, String product, String alias, String aliasProduct) {
        this.id = id;
        this.product = product;
        this.alias = alias;
        this.aliasProduct = aliasProduct;
    }

    /** The jar folder of this dialect's SQL, e.g. {@code /io/lockkit/jdbc/postgresql}. */
    public String resourceFolder() {
        return "/io/lockkit/jdbc/" + id;
    }

    /**
     * The jar folder of this dialect's migrations ({@code V<n>__<what>.sql}), e.g.
     * {@code /io/lockkit/jdbc/postgresql/migration}: a Flyway location
     * ({@code classpath:io/lockkit/jdbc/postgresql/migration}), or the files for Liquibase's
     * {@code sqlFile}. A released file never changes; later versions add files.
     */
    public String migrationFolder() {
        return resourceFolder() + "/migration";
    }

    /** The database's name, as in messages. */
    String product() {
        return product;
    }

    /** This dialect's implementation for one provider (a new dialect: one constant above, one case here). */
    Dialect create(Dialect.Context context) {
        return switch (this) {
            case POSTGRESQL -> new PostgresDialect(context);
            case H2 -> new H2Dialect(context);
            case MARIADB -> new MariaDbDialect(context);
        };
    }

    /** The dialect of a JDBC URL or database product name, or null when none fits. */
    static @Nullable JdbcDialect detect(String urlOrProduct) {
        String s = urlOrProduct.toLowerCase(Locale.ROOT);
        for (JdbcDialect d : values()) {
            if (s.startsWith("jdbc:" + d.id + ":")
                    || s.equals(d.product.toLowerCase(Locale.ROOT))
                    || (!d.alias.isEmpty()
                            && (s.startsWith("jdbc:" + d.alias + ":")
                                    || s.equals(d.aliasProduct.toLowerCase(Locale.ROOT))))) {
                return d;
            }
        }
        return null;
    }

    /** The products of every dialect, for messages: "PostgreSQL, H2, MariaDB, MySQL". */
    static String products() {
        StringBuilder b = new StringBuilder();
        for (JdbcDialect d : values()) {
            b.append(b.length() == 0 ? "" : ", ").append(d.product);
            if (!d.aliasProduct.isEmpty()) {
                b.append(", ").append(d.aliasProduct);
            }
        }
        return b.toString();
    }
}
