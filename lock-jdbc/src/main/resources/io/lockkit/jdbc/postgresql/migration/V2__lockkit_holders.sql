-- lockkit lock table for PostgreSQL: migration 2, shared holds (read/write locks, semaphores).
--
-- Unreleased until a release lists it in ReleasedMigrationsTest; then it never changes. Applied
-- after V1 by createSchema(true), Flyway or Liquibase (sqlFile, splitStatements false), with the
-- default names below replaced as for V1. Each statement is idempotent. The last one records
-- version 2.
--
-- An exclusive holder stays the owner of its lock row, exactly as in V1. A name held shared has a
-- lock row too, whose owner is 'shared holders' (never an owner id: those have a colon and no
-- space) and whose lease_until is the longest lease of its shared holders, so that an exclusive
-- attempt sees the name busy until the last of them lapses. The lock row is the name's one
-- serialization point: every shared step locks it before it reads or writes the tables below.
--
-- lockkit_locks_holders: one row per shared holder of a name.
--   lock_key     the lock row's key
--   owner        the holder's owner id ("<client id>:<owner within the client>")
--   weight       the units of the capacity it holds (a read lock 1, k permits k)
--   hold_count   its reentrant holds (>= 1)
--   token        its fencing token (from lockkit_locks_token_seq, as every hold's)
--   lease_until  its own lease, on the database clock: a crashed holder's permits come back when
--                it ends, whoever else renews
--   acquired_at  when the hold began
CREATE TABLE IF NOT EXISTS lockkit_locks_holders (
    lock_key    VARCHAR(64)  NOT NULL,
    owner       VARCHAR(200) NOT NULL,
    weight      INTEGER      NOT NULL,
    hold_count  INTEGER      NOT NULL,
    token       BIGINT       NOT NULL,
    lease_until TIMESTAMPTZ  NOT NULL,
    acquired_at TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (lock_key, owner)
);

-- lockkit_locks_capacity: the capacity stored with a bounded name (a semaphore), set by the first
-- bounded claim admitted and kept while the name is free: it is configuration, not state.
CREATE TABLE IF NOT EXISTS lockkit_locks_capacity (
    lock_key    VARCHAR(64)  NOT NULL PRIMARY KEY,
    name        TEXT         NOT NULL,
    capacity    INTEGER      NOT NULL
);

INSERT INTO lockkit_locks_version (version, description) VALUES (2, 'shared holders, stored capacities')
ON CONFLICT (version) DO NOTHING;
