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

-- A fair exclusive attempt (statements.sql, acquire.fair), one statement: the lock row first,
-- locked (as acquire, release and abandon lock it before the queue), so that a release cannot miss
-- a place taken here; then, unless the owner holds the row (reentrant, or handed the lock to
-- claim), the queue: a live place of another owner before its own (any, when it has none) keeps
-- it out, and a waiting owner takes or keeps its place (a place that lapsed starts again at the
-- end) and marks the row as waited for; else lockkit_locks_acquire decides as for any attempt,
-- with wait id 0 (a fair place is never granted outright, nor passed by a later waiter of the
-- releasing client). Kept out: NULL and the row's lease left (NULL when no lease is valid: the
-- name is free, but not this claim's yet, and it asks again within the poll interval).
CREATE OR REPLACE FUNCTION lockkit_locks_acquire_fair(p_key TEXT, p_name TEXT, p_owner TEXT, p_lease BIGINT,
        p_max_wait BIGINT, p_wait_id BIGINT, p_claim BIGINT, p_gate INTEGER, p_lock_timeout_ms INTEGER,
        OUT o_token BIGINT, OUT o_remaining_us BIGINT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_now TIMESTAMPTZ;
    v_lease TIMESTAMPTZ;
    v_since TIMESTAMPTZ;
    v_expires TIMESTAMPTZ;
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', TRUE);
    PERFORM pg_advisory_xact_lock(p_gate, hashtext(p_key));
    v_now := clock_timestamp();
    SELECT CASE WHEN l.owner = p_owner AND l.lease_until > v_now THEN NULL ELSE l.lease_until END
    INTO v_lease FROM lockkit_locks l WHERE l.lock_key = p_key FOR UPDATE;
    IF NOT FOUND OR v_lease IS NOT NULL THEN
        SELECT w.since INTO v_since FROM lockkit_locks_waiters w
        WHERE w.lock_key = p_key AND w.owner = p_owner AND w.expires > v_now;
        IF EXISTS (SELECT 1 FROM lockkit_locks_waiters w
                   WHERE w.lock_key = p_key AND w.owner <> p_owner AND w.expires > v_now
                     AND (v_since IS NULL OR (w.since, w.owner) < (v_since, p_owner))) THEN
            IF p_max_wait > 0 THEN
                v_expires := LEAST(v_now + p_max_wait * INTERVAL '1 microsecond', GREATEST(v_lease, v_now))
                             + p_claim * INTERVAL '1 microsecond';
                INSERT INTO lockkit_locks_waiters AS w (lock_key, owner, since, expires, wait_id, lease_us, weight)
                VALUES (p_key, p_owner, v_now, v_expires, 0, p_lease, 0)
                ON CONFLICT (lock_key, owner) DO UPDATE SET
                    since = CASE WHEN w.expires > EXCLUDED.since THEN w.since ELSE EXCLUDED.since END,
                    expires = GREATEST(w.expires, EXCLUDED.expires), wait_id = 0, lease_us = EXCLUDED.lease_us,
                    weight = 0
                RETURNING w.expires INTO v_expires;
                UPDATE lockkit_locks l SET wait_until = GREATEST(l.wait_until, v_expires) WHERE l.lock_key = p_key;
            END IF;
            IF v_lease > v_now THEN
                o_remaining_us := (extract(epoch FROM v_lease - v_now) * 1000000)::BIGINT;
            END IF;
            RETURN;
        END IF;
    END IF;
    SELECT a.o_token, a.o_remaining_us INTO o_token, o_remaining_us
    FROM lockkit_locks_acquire(p_key, p_name, p_owner, p_lease, p_max_wait, 0, p_claim, p_gate, p_lock_timeout_ms) a;
END
$$;

INSERT INTO lockkit_locks_version (version, description) VALUES (3, 'fair queue: waiters with a weight, fair acquire')
ON CONFLICT (version) DO NOTHING;
