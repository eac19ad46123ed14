-- lockkit lock table for PostgreSQL 12 or later: migration 1, as lockkit 0.1.0 released it.
--
-- A released migration never changes (lock-jdbc's ReleasedMigrationsTest holds its SHA-256); every
-- later change of the schema is a new file V<n>__<what>.sql in this folder. Usable as is from Flyway
-- (location classpath:io/lockkit/jdbc/postgresql/migration) or Liquibase (sqlFile, splitStatements
-- false), with the default names below; JdbcLockProvider.Builder.createSchema(true) runs it with the
-- configured table name in place of lockkit_locks (and of every name that starts with it), when the
-- version table says it has not run. Each statement is idempotent (IF NOT EXISTS, OR REPLACE, ON
-- CONFLICT DO NOTHING), so a partly applied file can be applied again. The last statement records
-- version 1 in lockkit_locks_version.
--
-- The grants an application role needs (no DDL): see grants.sql beside this folder.
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
    wait_id     BIGINT       NOT NULL,
    lease_us    BIGINT       NOT NULL,
    PRIMARY KEY (lock_key, owner)
);

-- The operations, one function each, called as one statement by JdbcLockProvider (see
-- statements.sql for what each does and why). Functions rather than one SQL statement with a
-- writable CTE per case: PostgreSQL sets up every INSERT/UPDATE/DELETE of a statement (relations,
-- indexes, RETURNING) whether or not it touches a row, and that set-up, not the work, was most of
-- an uncontended acquire + release (measured: one statement with six writable CTEs took 4x the time
-- of one DELETE). A function runs only the statements of the case at hand: the uncontended acquire
-- is one INSERT, the uncontended release one DELETE, as in the raw-SQL floor. Each statement in a
-- function sees the rows committed when it starts (READ COMMITTED), and the lock row is locked
-- (INSERT ... ON CONFLICT, DELETE, SELECT ... FOR UPDATE) before anything is decided from it.
-- Timeouts: a function's waits are for locks only (the advisory gate, the lock row), so each one
-- bounds them itself with lock_timeout (p_lock_timeout_ms, SET LOCAL: this statement's transaction
-- only) and fails with lock_not_available; the client sets no query timeout on these calls. (A
-- JDBC query timeout costs a wake-up of the driver's timer thread per statement: measured about
-- 70 us a statement on the shared, pinned benchmark machine.) A server that stops answering
-- altogether is the socket timeout's business, as for every statement.
CREATE OR REPLACE FUNCTION lockkit_locks_acquire(p_key TEXT, p_name TEXT, p_owner TEXT, p_lease BIGINT,
        p_max_wait BIGINT, p_wait_id BIGINT, p_claim BIGINT, p_gate INTEGER, p_lock_timeout_ms INTEGER,
        OUT o_token BIGINT, OUT o_remaining_us BIGINT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_now TIMESTAMPTZ;
    v_token BIGINT;
    v_waited TIMESTAMPTZ;
    v_lease TIMESTAMPTZ;
    v_expires TIMESTAMPTZ;
    v_inserted BOOLEAN;
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', TRUE);
    -- The gate: acquisitions of one name one at a time, so that a new row's token (drawn before the
    -- INSERT finds the key free) cannot be lower than one another client took and released meanwhile.
    PERFORM pg_advisory_xact_lock(p_gate, hashtext(p_key));
    v_now := clock_timestamp();
    INSERT INTO lockkit_locks AS l (lock_key, name, owner, hold_count, token, lease_until, acquired_at, wait_until, streak, grant_wait)
    VALUES (p_key, p_name, p_owner, 1, nextval('lockkit_locks_token_seq'), v_now + p_lease * INTERVAL '1 microsecond', v_now,
            (SELECT max(q.expires) FROM lockkit_locks_waiters q WHERE q.lock_key = p_key), 0, 0)
    ON CONFLICT (lock_key) DO UPDATE SET
        hold_count  = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.hold_count > 0
                           THEN l.hold_count + CASE WHEN l.grant_wait = p_wait_id AND l.grant_wait > 0 THEN 0 ELSE 1 END
                           ELSE 1 END,
        token       = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at
                           THEN l.token ELSE GREATEST(nextval('lockkit_locks_token_seq'), l.token + 1) END,
        lease_until = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.hold_count > 0
                                AND NOT (l.grant_wait = p_wait_id AND l.grant_wait > 0)
                           THEN GREATEST(l.lease_until, EXCLUDED.lease_until) ELSE EXCLUDED.lease_until END,
        acquired_at = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.hold_count > 0
                           THEN l.acquired_at ELSE EXCLUDED.acquired_at END,
        grant_wait  = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.grant_wait <> p_wait_id
                           THEN l.grant_wait ELSE 0 END,
        streak      = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at THEN l.streak ELSE 0 END,
        owner       = EXCLUDED.owner,
        name        = EXCLUDED.name
    WHERE l.owner = EXCLUDED.owner OR l.lease_until <= EXCLUDED.acquired_at
    RETURNING l.token, l.wait_until, l.xmax = 0 INTO v_token, v_waited, v_inserted;
    IF FOUND THEN
        IF v_inserted AND v_token < (SELECT s.last_value FROM lockkit_locks_token_seq s) THEN
            -- A new row's token was drawn before the INSERT found the key free, and a later one was
            -- drawn meanwhile. A release or an abandon that hands the lock over draws its token
            -- without the gate, so while this INSERT waited for the row, the lock may have been
            -- handed over (a later token) and released (the row deleted): draw again, now that the
            -- row is this owner's, so the token exceeds every token this name had.
            UPDATE lockkit_locks l SET token = nextval('lockkit_locks_token_seq') WHERE l.lock_key = p_key
            RETURNING l.token INTO v_token;
        END IF;
        IF v_waited IS NOT NULL THEN
            -- Someone queued for this name (maybe this owner): leave the queue.
            DELETE FROM lockkit_locks_waiters w WHERE w.lock_key = p_key AND w.owner = p_owner;
        END IF;
        o_token := v_token;
        RETURN;
    END IF;
    -- Busy; the row is locked by the INSERT ... ON CONFLICT above.
    SELECT l.lease_until INTO v_lease FROM lockkit_locks l WHERE l.lock_key = p_key;
    IF p_max_wait > 0 THEN
        -- Queue (or refresh the place) until the holder's lease or the wait ends, plus the claim
        -- timeout; mark the row, so that the release knows someone waits.
        v_expires := LEAST(v_now + p_max_wait * INTERVAL '1 microsecond', v_lease) + p_claim * INTERVAL '1 microsecond';
        INSERT INTO lockkit_locks_waiters AS w (lock_key, owner, since, expires, wait_id, lease_us)
        VALUES (p_key, p_owner, v_now, v_expires, p_wait_id, p_lease)
        ON CONFLICT (lock_key, owner) DO UPDATE SET expires = GREATEST(w.expires, EXCLUDED.expires),
            wait_id = EXCLUDED.wait_id, lease_us = EXCLUDED.lease_us
        RETURNING w.expires INTO v_expires;
        UPDATE lockkit_locks l SET wait_until = GREATEST(l.wait_until, v_expires) WHERE l.lock_key = p_key;
    END IF;
    o_remaining_us := (extract(epoch FROM v_lease - v_now) * 1000000)::BIGINT;
END
$$;

CREATE OR REPLACE FUNCTION lockkit_locks_release(p_key TEXT, p_owner TEXT, p_client TEXT, p_max_streak INTEGER,
        p_claim BIGINT, p_channel TEXT, p_origin TEXT, p_lock_timeout_ms INTEGER,
        OUT o_outcome TEXT, OUT o_grantee TEXT, OUT o_token BIGINT, OUT o_wait_id BIGINT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_now TIMESTAMPTZ;
    v_held BOOLEAN;
    v_waited BOOLEAN;
    v_count INTEGER;
    v_streak INTEGER;
    v_next RECORD;
    v_mate RECORD;
    v_next_streak INTEGER;
    v_direct BOOLEAN;
    v_token BIGINT;
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', TRUE);
    v_now := clock_timestamp();
    o_token := 0;
    o_wait_id := 0;
    -- Nobody waits (or the lease lapsed): one DELETE, and no notification when nobody waits.
    DELETE FROM lockkit_locks l WHERE l.lock_key = p_key AND l.owner = p_owner
        AND (l.lease_until <= v_now OR (l.hold_count = 1 AND (l.wait_until IS NULL OR l.wait_until <= v_now)))
    RETURNING l.lease_until > v_now, COALESCE(l.wait_until > v_now, FALSE) INTO v_held, v_waited;
    IF FOUND THEN
        IF v_waited THEN
            PERFORM pg_notify(p_channel, p_key);
        END IF;
        o_outcome := CASE WHEN v_held THEN 'freed' ELSE 'lapsed' END;
        RETURN;
    END IF;
    SELECT l.hold_count, l.streak INTO v_count, v_streak FROM lockkit_locks l
    WHERE l.lock_key = p_key AND l.owner = p_owner AND l.lease_until > v_now AND l.hold_count > 0
    FOR UPDATE;
    IF NOT FOUND THEN
        o_outcome := 'not_held';
        RETURN;
    END IF;
    IF v_count > 1 THEN
        UPDATE lockkit_locks l SET hold_count = l.hold_count - 1 WHERE l.lock_key = p_key;
        o_outcome := 'still_held';
        RETURN;
    END IF;
    -- Someone was queued: the next live waiter, oldest first, but a waiter of the releasing client
    -- ahead of an older one of another client for at most p_max_streak hand-overs in a row.
    SELECT w.owner, w.wait_id, w.lease_us INTO v_next FROM lockkit_locks_waiters w
    WHERE w.lock_key = p_key AND w.expires > v_now AND w.owner <> p_owner
    ORDER BY w.since, w.owner LIMIT 1;
    IF NOT FOUND THEN
        -- Marked as waited for, but no live entry: free, and the waiters look again.
        DELETE FROM lockkit_locks l WHERE l.lock_key = p_key;
        DELETE FROM lockkit_locks_waiters w WHERE w.lock_key = p_key AND w.expires <= v_now;
        PERFORM pg_notify(p_channel, p_key);
        o_outcome := 'freed';
        RETURN;
    END IF;
    v_next_streak := 0;
    IF p_client IS NOT NULL AND NOT starts_with(v_next.owner, p_client) AND v_streak < p_max_streak THEN
        SELECT w.owner, w.wait_id, w.lease_us INTO v_mate FROM lockkit_locks_waiters w
        WHERE w.lock_key = p_key AND w.expires > v_now AND w.owner <> p_owner AND starts_with(w.owner, p_client)
          AND w.wait_id > 0 AND w.lease_us > 0
        ORDER BY w.since, w.owner LIMIT 1;
        IF FOUND THEN
            v_next := v_mate;
            v_next_streak := v_streak + 1;
        END IF;
    END IF;
    v_direct := p_client IS NOT NULL AND starts_with(v_next.owner, p_client) AND v_next.wait_id > 0 AND v_next.lease_us > 0;
    UPDATE lockkit_locks l SET owner = v_next.owner,
        hold_count  = CASE WHEN v_direct THEN 1 ELSE 0 END,
        token       = GREATEST(nextval('lockkit_locks_token_seq'), l.token + 1),
        lease_until = v_now + (CASE WHEN v_direct THEN v_next.lease_us ELSE p_claim END) * INTERVAL '1 microsecond',
        acquired_at = v_now,
        streak      = v_next_streak,
        grant_wait  = CASE WHEN v_direct THEN v_next.wait_id ELSE 0 END
    WHERE l.lock_key = p_key
    RETURNING l.token INTO v_token;
    DELETE FROM lockkit_locks_waiters w WHERE w.lock_key = p_key AND (w.owner = v_next.owner OR w.expires <= v_now);
    o_grantee := v_next.owner;
    IF v_direct THEN
        -- Granted outright: the releasing process passes the token to its waiter; nobody is notified.
        o_outcome := 'granted';
        o_token := v_token;
        o_wait_id := v_next.wait_id;
    ELSE
        o_outcome := 'handed_to';
        PERFORM pg_notify(p_channel, p_key || ':' || v_next.owner || ' ' || p_origin);
    END IF;
END
$$;

-- The owner stopped waiting (wait p_wait_id): the lock row first (as acquisitions and releases
-- lock it before the queue: no deadlock), then its queue entry goes; a hand-over it has not
-- claimed, or a grant to this wait it never took, passes to the next live waiter, or the lock is
-- freed when none waits.
CREATE OR REPLACE FUNCTION lockkit_locks_abandon(p_key TEXT, p_owner TEXT, p_wait_id BIGINT, p_claim BIGINT,
        p_channel TEXT, p_lock_timeout_ms INTEGER, OUT o_grantee TEXT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_now TIMESTAMPTZ;
    v_owner TEXT;
    v_count INTEGER;
    v_grant BIGINT;
    v_next TEXT;
BEGIN
    PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', TRUE);
    v_now := clock_timestamp();
    SELECT l.owner, l.hold_count, l.grant_wait INTO v_owner, v_count, v_grant FROM lockkit_locks l
    WHERE l.lock_key = p_key FOR UPDATE;
    DELETE FROM lockkit_locks_waiters w WHERE w.lock_key = p_key AND w.owner = p_owner;
    IF v_owner IS DISTINCT FROM p_owner
       OR NOT (v_count = 0 OR (v_count = 1 AND p_wait_id > 0 AND v_grant = p_wait_id)) THEN
        RETURN;
    END IF;
    SELECT w.owner INTO v_next FROM lockkit_locks_waiters w
    WHERE w.lock_key = p_key AND w.expires > v_now AND w.owner <> p_owner
    ORDER BY w.since, w.owner LIMIT 1;
    IF FOUND THEN
        UPDATE lockkit_locks l SET owner = v_next, hold_count = 0, streak = 0, grant_wait = 0,
            token = GREATEST(nextval('lockkit_locks_token_seq'), l.token + 1),
            lease_until = v_now + p_claim * INTERVAL '1 microsecond', acquired_at = v_now
        WHERE l.lock_key = p_key;
        DELETE FROM lockkit_locks_waiters w WHERE w.lock_key = p_key AND w.owner = v_next;
        PERFORM pg_notify(p_channel, p_key || ':' || v_next);
        o_grantee := v_next;
    ELSE
        DELETE FROM lockkit_locks l WHERE l.lock_key = p_key;
        PERFORM pg_notify(p_channel, p_key);
    END IF;
END
$$;

-- The schema's version: one row per migration applied (createSchema(true) reads the highest and
-- runs only the files above it; a Flyway or Liquibase run of this file records it too).
CREATE TABLE IF NOT EXISTS lockkit_locks_version (
    version     INTEGER      NOT NULL PRIMARY KEY,
    description TEXT         NOT NULL,
    applied_at  TIMESTAMPTZ  NOT NULL DEFAULT now()
);

INSERT INTO lockkit_locks_version (version, description) VALUES (1, 'lock table, wait queue, token sequence, functions')
ON CONFLICT (version) DO NOTHING;
