-- lockkit lock table for PostgreSQL: migration 3, the fair queue (fair lock, fair semaphore).
--
-- Unreleased until a release lists it in ReleasedMigrationsTest; then it never changes. Applied
-- after V2 by createSchema(true), Flyway or Liquibase (sqlFile, splitStatements false), with the
-- default names below replaced as for V1. Each statement is idempotent. The last one records
-- version 3.
--
-- A fair claim queues in lockkit_locks_waiters, the queue V1 keeps for exclusive waiters, in arrival
-- order (since, then owner), and is admitted only when no live entry of another owner arrived
-- before its own (see statements.sql, fair.check). A fair waiter's entry carries wait id 0, so a
-- release never grants it outright and never lets a later waiter of the releasing client pass it;
-- it is handed the lock in its turn, as every queued waiter is. An entry lapses when its waiter
-- stops asking (expires, renewed by each attempt), and abandon deletes it.
--
-- lockkit_locks_waiters.weight: what the entry waits for: 0 an exclusive hold (every entry of V1
-- and V2), k >= 1 a fair shared claim of k units (a fair semaphore's waiter). New shared claims
-- that are not fair stay behind the exclusive entries only (writer preference); fair ones behind
-- every entry that arrived before theirs.
ALTER TABLE lockkit_locks_waiters ADD COLUMN IF NOT EXISTS weight INTEGER NOT NULL DEFAULT 0;

INSERT INTO lockkit_locks_version (version, description) VALUES (3, 'fair queue: waiters with a weight')
ON CONFLICT (version) DO NOTHING;
