-- lockkit lock table for H2 2.x: migration 2, shared holds (read/write locks, semaphores).
--
-- Unreleased until a release lists it in ReleasedMigrationsTest; then it never changes. The same
-- layout as on PostgreSQL (see postgresql/migration/V2__lockkit_holders.sql): shared holders in
-- lockkit_locks_holders, each with its own lease, under a lock row owned by 'shared holders' whose
-- lease is the longest of theirs; stored capacities in lockkit_locks_capacity. H2 keeps no queue
-- for exclusive waiters otherwise: lockkit_locks_waiters holds only exclusive waiters queued behind
-- shared holders (writer preference), each until it is admitted, abandons, or its entry expires.
CREATE TABLE IF NOT EXISTS lockkit_locks_holders (
    lock_key    VARCHAR(64)  NOT NULL,
    owner       VARCHAR(200) NOT NULL,
    weight      INTEGER      NOT NULL,
    hold_count  INTEGER      NOT NULL,
    token       BIGINT       NOT NULL,
    lease_until TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    acquired_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    PRIMARY KEY (lock_key, owner)
);

CREATE TABLE IF NOT EXISTS lockkit_locks_capacity (
    lock_key    VARCHAR(64)  NOT NULL PRIMARY KEY,
    name        VARCHAR(32768) NOT NULL,
    capacity    INTEGER      NOT NULL
);

CREATE TABLE IF NOT EXISTS lockkit_locks_waiters (
    lock_key    VARCHAR(64)  NOT NULL,
    owner       VARCHAR(200) NOT NULL,
    expires     TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    PRIMARY KEY (lock_key, owner)
);

MERGE INTO lockkit_locks_version (version, description) KEY (version)
VALUES (2, 'shared holders, stored capacities, waiters behind them');
