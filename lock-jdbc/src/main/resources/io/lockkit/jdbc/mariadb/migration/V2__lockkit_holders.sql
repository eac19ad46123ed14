-- lockkit lock table for MariaDB 10.6 or later (and MySQL 8.0, by design): migration 2, shared
-- holds (read/write locks, semaphores).
--
-- Unreleased until a release lists it in ReleasedMigrationsTest; then it never changes. The same
-- layout as on PostgreSQL (see postgresql/migration/V2__lockkit_holders.sql), with times as
-- microseconds since the epoch on the database's clock, as in V1: shared holders in
-- lockkit_locks_holders, each with its own lease, under a lock row owned by 'shared holders' whose
-- lease is the longest of theirs; stored capacities in lockkit_locks_capacity.
CREATE TABLE IF NOT EXISTS lockkit_locks_holders (
    lock_key    CHAR(64)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    owner       VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    weight      INT          NOT NULL,
    hold_count  INT          NOT NULL,
    token       BIGINT       NOT NULL,
    lease_until BIGINT       NOT NULL,
    acquired_at BIGINT       NOT NULL,
    PRIMARY KEY (lock_key, owner)
) ENGINE = InnoDB;

CREATE TABLE IF NOT EXISTS lockkit_locks_capacity (
    lock_key    CHAR(64)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
    name        TEXT         CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    capacity    INT          NOT NULL
) ENGINE = InnoDB;

INSERT IGNORE INTO lockkit_locks_version (version, description)
VALUES (2, 'shared holders, stored capacities');
