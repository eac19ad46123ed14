-- lockkit lock table for H2 2.x, schema version 1.
--
-- Usable as is from Flyway or Liquibase (a versioned migration; the names below are the defaults),
-- or run by JdbcLockProvider.Builder.createSchema(true), which substitutes the configured table name
-- for lockkit_locks (the sequence is always named <table>_token_seq) and skips what exists.
--
-- The same layout as the PostgreSQL table (see postgresql/V1__lockkit_locks.sql for the columns):
-- one row per held (or lapsed, not yet taken) lock, deleted on release; lease deadlines on the
-- database clock (CURRENT_TIMESTAMP(6) of the H2 server); fencing tokens from a sequence, so they
-- increase per name across release, expiry, force release and row deletion.
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
