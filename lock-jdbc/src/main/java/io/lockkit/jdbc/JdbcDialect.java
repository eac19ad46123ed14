package io.lockkit.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * The SQL dialects {@link JdbcLockProvider} speaks; each has its own schema and statements files in
 * the jar ({@code io/lockkit/jdbc/<dialect>/V1__lockkit_locks.sql} and {@code statements.sql}).
 */
public enum JdbcDialect {

    /**
     * PostgreSQL 12 or later: one statement per operation, release notifications through
     * LISTEN/NOTIFY when the PostgreSQL JDBC driver is present.
     */
    POSTGRESQL("postgresql"),

    /** H2 2.x: one short transaction per operation; waiters of other clients poll. */
    H2("h2");

    private final String resourceFolder;

    JdbcDialect(String resourceFolder) {
        this.resourceFolder = resourceFolder;
    }

    /** The jar folder of this dialect's SQL, e.g. {@code /io/lockkit/jdbc/postgresql}. */
    public String resourceFolder() {
        return "/io/lockkit/jdbc/" + resourceFolder;
    }

    /** The versioned DDL of the lock table, as a resource path, e.g. for a Flyway or Liquibase migration. */
    public String schemaResource() {
        return resourceFolder() + "/V1__lockkit_locks.sql";
    }

    /** The dialect of a JDBC URL or database product name, or null when none fits. */
    static @Nullable JdbcDialect detect(String urlOrProduct) {
        String s = urlOrProduct.toLowerCase(java.util.Locale.ROOT);
        if (s.startsWith("jdbc:postgresql:") || s.equals("postgresql")) {
            return POSTGRESQL;
        }
        if (s.startsWith("jdbc:h2:") || s.equals("h2")) {
            return H2;
        }
        return null;
    }
}
