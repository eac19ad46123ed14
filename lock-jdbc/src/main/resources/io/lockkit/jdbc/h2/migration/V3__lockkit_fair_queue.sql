-- lockkit lock table for H2 2.x: migration 3, the fair queue (fair lock, fair semaphore).
--
-- Unreleased until a release lists it in ReleasedMigrationsTest; then it never changes. Fair claims
-- queue in lockkit_locks_waiters (V2), as on PostgreSQL (see postgresql/migration/V3__lockkit_fair_queue.sql),
-- in arrival order. H2's entries had no arrival; since numbers them from the token sequence (H2's
-- CURRENT_TIMESTAMP(6) may give two quick transactions the same instant; a sequence never repeats,
-- and tokens only need to increase). weight: 0 an exclusive waiter (every entry of V2), k >= 1 a
-- fair shared claim of k units.
ALTER TABLE lockkit_locks_waiters ADD COLUMN IF NOT EXISTS since BIGINT DEFAULT NEXT VALUE FOR lockkit_locks_token_seq NOT NULL;

ALTER TABLE lockkit_locks_waiters ADD COLUMN IF NOT EXISTS weight INTEGER DEFAULT 0 NOT NULL;

MERGE INTO lockkit_locks_version (version, description) KEY (version)
VALUES (3, 'fair queue: waiters with arrival and weight');
