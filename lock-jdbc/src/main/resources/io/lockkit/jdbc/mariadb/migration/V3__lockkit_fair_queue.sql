-- lockkit lock table for MariaDB 10.6 or later: migration 3, the fair queue (fair lock, fair
-- semaphore).
--
-- Unreleased until a release lists it in ReleasedMigrationsTest; then it never changes. The same
-- change as on PostgreSQL (see postgresql/migration/V3__lockkit_fair_queue.sql): fair claims queue
-- in lockkit_locks_waiters in arrival order (since, then owner), and the column below says what an
-- entry waits for: 0 an exclusive hold (every entry of V1 and V2), k >= 1 a fair shared claim of k
-- units. ADD COLUMN IF NOT EXISTS is MariaDB's (MySQL 8 has no IF NOT EXISTS here: there, run the
-- ALTER without it, once).
ALTER TABLE lockkit_locks_waiters ADD COLUMN IF NOT EXISTS weight INT NOT NULL DEFAULT 0;

INSERT IGNORE INTO lockkit_locks_version (version, description)
VALUES (3, 'fair queue: waiters with a weight');
