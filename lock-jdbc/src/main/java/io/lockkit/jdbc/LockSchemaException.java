package io.lockkit.jdbc;

import io.lockkit.LockException;
import org.jspecify.annotations.Nullable;

/**
 * The lock table, or a part of its schema (sequence, function, column, or the shared holders' and
 * capacities' tables of migration 2, which read locks and semaphores need), is missing: create it
 * with the migrations in the jar ({@link JdbcDialect#migrationFolder()}), or build the provider with
 * {@link JdbcLockProvider.Builder#createSchema(boolean) createSchema(true)}.
 */
public class LockSchemaException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockSchemaException(@Nullable String lockName, String message, Throwable cause) {
        super(lockName, message, cause);
    }
}
