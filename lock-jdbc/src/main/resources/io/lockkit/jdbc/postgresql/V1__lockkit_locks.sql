-- lockkit lock table for PostgreSQL, schema version 1.
--
-- Usable as is from Flyway or Liquibase (a versioned migration; the names below are the defaults),
-- or run by JdbcLockProvider.Builder.createSchema(true), which substitutes the configured table name
-- for lockkit_locks (the sequence is always named <table>_token_seq) and skips what exists.
--
-- One row per lock that is held (or handed to a waiter that has not claimed it yet, hold_count 0),
-- or whose lease lapsed and nobody took it since; a release deletes the row (or hands it over), so
-- the table holds live locks, not every name ever used. lockkit_locks_waiters is the FIFO queue of
-- owners waiting for a lock, so that a release hands the lock to one waiter and wakes only it.
--   lock_key     hex SHA-256 of the lock name (UTF-8): names may be 8192 characters, more than a
--                btree entry takes; the key is also the NOTIFY payload
--   name         the lock name, for operators
--   owner        "<client id>:<owner within the client>" of the holder
--   hold_count   reentrant holds of that owner (>= 1)
--   token        the fencing token of this hold (unchanged by reentrant acquisition and renewal)
--   lease_until  the lease deadline on the database clock (clock_timestamp()), never a client's
--   acquired_at  when the hold began, on the database clock
--   wait_until   NULL, or until when an owner may wait for this lock (the latest queue entry's expiry,
--                set by the attempt that queued it): a release that finds it past (or NULL) knows
--                that nobody waits and frees the lock with one DELETE, without a notification
--   streak       hand-overs in a row that went to a waiter of the releasing client ahead of an
--                older waiter of another client (bounded; see statements.sql, release)
--   grant_wait   the wait id a release granted this lock to outright (0: none), so that an attempt
--                of that wait takes the grant and its abandon gives it back
--
-- Fencing tokens come from lockkit_locks_token_seq, never from the row alone: a sequence hands out
-- each value once and in increasing order, survives restarts (it may skip ahead after a crash, never
-- back) and does not care whether the row of a name was released, expired, force-released or
-- deleted by hand. CACHE 1 is required: a per-session cache would let a later acquisition draw a
-- lower value than an earlier one of another session.
CREATE TABLE IF NOT EXISTS lockkit_locks (
    lock_key    VARCHAR(64)  NOT NULL PRIMARY KEY,
    name        TEXT         NOT NULL,
    owner       VARCHAR(200) NOT NULL,
    hold_count  INTEGER      NOT NULL,
    token       BIGINT       NOT NULL,
    lease_until TIMESTAMPTZ  NOT NULL,
    acquired_at TIMESTAMPTZ  NOT NULL,
    wait_until  TIMESTAMPTZ,
    streak      INTEGER      NOT NULL DEFAULT 0,
    grant_wait  BIGINT       NOT NULL DEFAULT 0
);

CREATE SEQUENCE IF NOT EXISTS lockkit_locks_token_seq AS BIGINT START WITH 1 CACHE 1 NO CYCLE;

-- Waiting owners per lock, oldest first: since (arrival, database clock) orders them; an entry whose
-- expires passed (its waiter stopped asking: crashed, or gave up without saying) is skipped and
-- removed by the next release. Waiters refresh expires with every attempt. wait_id and lease_us are
-- those of the waiter's latest request: a release by the waiter's own client grants the lock to
-- that wait outright, with that lease.
CREATE TABLE IF NOT EXISTS lockkit_locks_waiters (
    lock_key    VARCHAR(64)  NOT NULL,
    owner       VARCHAR(200) NOT NULL,
    since       TIMESTAMPTZ  NOT NULL,
    expires     TIMESTAMPTZ  NOT NULL,
    wait_id     BIGINT       NOT NULL DEFAULT 0,
    lease_us    BIGINT       NOT NULL DEFAULT 0,
    PRIMARY KEY (lock_key, owner)
);
