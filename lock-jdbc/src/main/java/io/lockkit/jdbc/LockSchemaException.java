package io.lockkit.jdbc;

import io.lockkit.LockException;
import org.jspecify.annotations.Nullable;

/**
 * The lock table or its token sequence is missing or does not have the expected columns: create it
 * from the DDL in the jar ({@link JdbcDialect#schemaResource()}), or build the provider with
 * {@link JdbcLockProvider.Builder#createSchema(boolean) createSchema(true)}.
 */
public class LockSchemaException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockSchemaException(@Nullable String lockName, String message, Throwable cause) {
        super(lockName, message, cause);
    }
}
