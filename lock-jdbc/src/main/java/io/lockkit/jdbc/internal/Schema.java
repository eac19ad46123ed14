package io.lockkit.jdbc.internal;

import java.sql.SQLException;

/**
 * {@code createSchema(true)}: the lock table created, or upgraded, when its version table says it is
 * behind the newest migration in the jar; one query and no DDL when it is current, so the
 * application's role needs no DDL rights at a normal start. Stateless.
 */
public final class Schema {

    private static final System.Logger LOG = System.getLogger(Schema.class.getName());

    private Schema() {}

    /** Brings the schema of {@code sql}'s table to the newest version, through {@code calls}. */
    public static void ensure(JdbcCalls calls, Dialect sql) {
        String table = sql.context().table();
        int installed = calls.run(null, "reading the schema version of " + table, c -> {
            try {
                return sql.installedVersion(c);
            } catch (SQLException e) {
                if (sql.schemaMissing(e)) {
                    return 0;
                }
                throw e;
            }
        });
        int latest = sql.latestVersion();
        if (installed >= latest) {
            return;
        }
        calls.run(null, "migrating the lock table " + table + " from version " + installed, c -> {
            sql.migrate(c, installed);
            return Boolean.TRUE; // no result
        });
        LOG.log(System.Logger.Level.INFO, "lock table {0} migrated from version {1} to {2}", table, installed, latest);
    }
}
