-- lockkit lock table for H2 2.x: migration 1, as lockkit 0.1.0 released it.
--
-- A released migration never changes (lock-jdbc's ReleasedMigrationsTest holds its SHA-256); every
-- later change of the schema is a new file V<n>__<what>.sql in this folder. Usable as is from Flyway
-- (location classpath:io/lockkit/jdbc/h2/migration) or Liquibase (sqlFile), with the default names
-- below; JdbcLockProvider.Builder.createSchema(true) runs it with the configured table name in place
-- of lockkit_locks (and of every name that starts with it), when the version table says it has not
-- run. Each statement is idempotent, so a partly applied file can be applied again.
--
-- The same layout as the PostgreSQL table (see postgresql/migration/V1__lockkit_locks.sql for the
-- columns) without the wait queue: one row per held (or lapsed, not yet taken) lock, deleted on
-- release; lease deadlines on the database clock (CURRENT_TIMESTAMP(6) of the H2 server); fencing
-- tokens from a sequence, so they increase per name across release, expiry, force release and row
-- deletion.
CREATE TABLE IF NOT EXISTS lockkit_locks (
    lock_key    VARCHAR(64)  NOT NULL PRIMARY KEY,
    name        VARCHAR(32768) NOT NULL,
    owner       VARCHAR(200) NOT NULL,
    hold_count  INTEGER      NOT NULL,
    token       BIGINT       NOT NULL,
    lease_until TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    acquired_at TIMESTAMP(6) WITH TIME ZONE NOT NULL
);

CREATE SEQUENCE IF NOT EXISTS lockkit_locks_token_seq AS BIGINT START WITH 1 NO CYCLE;

-- The schema's version: one row per migration applied.
CREATE TABLE IF NOT EXISTS lockkit_locks_version (
    version     INTEGER      NOT NULL PRIMARY KEY,
    description VARCHAR(200) NOT NULL,
    applied_at  TIMESTAMP(6) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP(6) NOT NULL
);

MERGE INTO lockkit_locks_version (version, description) KEY (version)
VALUES (1, 'lock table, token sequence');
