-- The statements of JdbcLockProvider on PostgreSQL: each operation is ONE statement, run in
-- autocommit on a connection of the provider's own (never inside a caller's transaction).
-- {table}, {waiters} and {sequence} are replaced by the configured, validated names; parameters are
-- named (:key, :owner, ...; PostgresLockTable turns each into a JDBC '?' and binds it by name).
--
-- Time: every deadline and every "now" is the database's clock_timestamp(), read once per statement
-- in the "clock" CTE; a client's clock is never compared with anything, so client skew cannot break
-- exclusion. Leases are sent as lengths (microseconds), never as instants.
--
-- Isolation: READ COMMITTED (the default) is enough: every decision is taken by an INSERT ... ON
-- CONFLICT, UPDATE or DELETE on the row itself, which PostgreSQL re-checks against the latest
-- committed version of the row (and locks it) before it writes; plain reads only give hints.
--
-- Wake-ups: a release that finds waiters calls pg_notify('<channel>', ...) in the same statement; the
-- notification is delivered at commit, i.e. when the row is already gone or handed over. Payload
-- "<lock_key>": the lock is free (one waiter per process looks); "<lock_key>:<owner>[ <origin>]": the
-- lock was handed to that waiting owner (only its process wakes it). A release that finds nobody
-- waiting (the row's wait_until NULL or past) notifies nobody: that is one DELETE, the cost of the
-- raw-SQL floor. A release that grants the lock outright to a waiter of its own client notifies
-- nobody either: the releasing process wakes that waiter itself. A contended acquisition thus costs
-- at most three statements however many processes wait: the first attempt (queued), the attempt
-- after subscribing, and the claim (none when granted outright).

-- :name acquire
-- Takes the lock, re-enters it, claims a hand-over, takes a grant made to this wait, or takes over a
-- lapsed lease; else reports how long the lease lasts and, when the owner will wait, queues it (or
-- refreshes its place) and marks the lock row as waited for (wait_until).
-- Returns one row: (token, NULL) when the owner holds the lock now; (NULL, remaining lease in us)
-- when another owner holds it; no row when the row appeared after this statement's snapshot
-- (another client took the lock at the same instant: busy, remaining unknown).
-- A row with hold_count 0 was handed to its owner by a release (see release): the owner claims it
-- with its own lease and keeps the token the release drew for it. A row with grant_wait = :wait was
-- granted outright to this very wait by a release of its own client: the attempt takes it as it is
-- (hold count unchanged, token kept) with its lease set anew from now.
-- Token order: the acquisitions of one name run one at a time ("gate": a transaction-level
-- advisory lock on the key's hash, released when this statement commits; it is a mutex around one
-- statement, not the lock itself, and works through poolers in transaction mode). Without it, a new
-- row's token, drawn before its INSERT finds the key free, could be lower than the token of a hold
-- that another client took and released in between (seen under load on 2 CPUs). The new token of a
-- take-over is drawn after the row is locked and is at least the row's token + 1, so it exceeds
-- every token this name had even if the sequence were reset. A reentrant acquisition keeps the
-- token and never shortens the lease. "now" is read after the gate, so waiting there shortens no lease.
-- (Measured: the gate and the sequence cost no more than noise on the uncontended pair; the time of
-- the pair is in the round trips and in how many plan nodes a statement runs. See the README.)
-- Queue: a waiting owner's entry lives until the holder's lease (as this statement saw it) or the
-- owner's wait ends, whichever is first, plus the claim timeout; the owner asks again by then. The
-- lock row's wait_until is raised to that expiry in the same statement (the row is locked by the
-- INSERT ... ON CONFLICT already), so a release, which re-reads the latest row before it deletes it,
-- cannot miss a waiter that queued before it. A new row starts with the latest expiry of the entries
-- already queued for the name (waiters from before a take-over or a deletion).
WITH gate AS MATERIALIZED (SELECT pg_advisory_xact_lock(:ns::int, hashtext(:key)) AS locked),
clock AS MATERIALIZED (SELECT clock_timestamp() AS now FROM gate),
taken AS (
    INSERT INTO {table} AS l (lock_key, name, owner, hold_count, token, lease_until, acquired_at, wait_until, streak, grant_wait)
    SELECT :key, :name, :owner, 1, nextval('{sequence}'), c.now + :lease::bigint * INTERVAL '1 microsecond', c.now,
           (SELECT max(q.expires) FROM {waiters} q WHERE q.lock_key = :key), 0, 0
    FROM clock c
    ON CONFLICT (lock_key) DO UPDATE SET
        hold_count  = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.hold_count > 0
                           THEN l.hold_count + CASE WHEN l.grant_wait = :wait::bigint AND l.grant_wait > 0 THEN 0 ELSE 1 END
                           ELSE 1 END,
        token       = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at
                           THEN l.token ELSE GREATEST(nextval('{sequence}'), l.token + 1) END,
        lease_until = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.hold_count > 0
                                AND NOT (l.grant_wait = :wait::bigint AND l.grant_wait > 0)
                           THEN GREATEST(l.lease_until, EXCLUDED.lease_until) ELSE EXCLUDED.lease_until END,
        acquired_at = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.hold_count > 0
                           THEN l.acquired_at ELSE EXCLUDED.acquired_at END,
        grant_wait  = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.grant_wait <> :wait::bigint
                           THEN l.grant_wait ELSE 0 END,
        streak      = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at THEN l.streak ELSE 0 END,
        owner       = EXCLUDED.owner,
        name        = EXCLUDED.name
    WHERE l.owner = EXCLUDED.owner OR l.lease_until <= EXCLUDED.acquired_at
    RETURNING l.token
),
dequeued AS (
    DELETE FROM {waiters} w
    WHERE w.lock_key = :key AND w.owner = :owner AND EXISTS (SELECT 1 FROM taken)
),
queued AS (
    INSERT INTO {waiters} AS w (lock_key, owner, since, expires, wait_id, lease_us)
    SELECT :key, :owner, c.now,
           LEAST(c.now + :max_wait::bigint * INTERVAL '1 microsecond',
                 (SELECT h.lease_until FROM {table} h WHERE h.lock_key = :key))
           + :claim::bigint * INTERVAL '1 microsecond',
           :wait::bigint, :lease::bigint
    FROM clock c
    WHERE :waiting::boolean AND NOT EXISTS (SELECT 1 FROM taken)
    ON CONFLICT (lock_key, owner) DO UPDATE SET expires = GREATEST(w.expires, EXCLUDED.expires),
        wait_id = EXCLUDED.wait_id, lease_us = EXCLUDED.lease_us
    RETURNING w.expires
),
marked AS (
    UPDATE {table} l SET wait_until = GREATEST(l.wait_until, q.expires)
    FROM queued q
    WHERE l.lock_key = :key
)
SELECT t.token, NULL::bigint AS remaining_us FROM taken t
UNION ALL
SELECT NULL::bigint, (extract(epoch FROM l.lease_until - c.now) * 1000000)::bigint
FROM {table} l, clock c
WHERE l.lock_key = :key AND NOT EXISTS (SELECT 1 FROM taken);

-- :name release
-- Lowers the owner's hold count; at zero:
-- - nobody waits (wait_until NULL or past, read from the latest row version, which a waiter's
--   attempt raised before this DELETE could lock the row): deletes the row, no notification. The
--   common, uncontended case runs this one DELETE ("quick"); every other part below is skipped by
--   one-time filters. The token lives on in the sequence.
-- - someone waits: hands the lock to the next live waiter. The next waiter is the oldest one, except
--   that the oldest live waiter of the releasing client (:client, "<client id>:") goes first when
--   the oldest is another client's, for at most :max_streak hand-overs in a row (streak counts
--   them; a hand-over to the oldest waiter resets it). So within a process a hot lock passes in one
--   statement, and a waiter of another process waits at most :max_streak hand-overs behind its
--   place in the queue, never longer (no starvation). A waiter of the releasing client is granted
--   the lock outright: row owner = grantee, hold_count 1, a new token, the lease of its latest
--   request, grant_wait = its wait id; the release returns (grantee, token, wait id), the releasing
--   process passes the token to the waiting thread, and no notification is sent. A waiter of
--   another client gets the lock to claim: hold_count 0, a new token, the claim timeout as its lease,
--   and the notification "<lock_key>:<owner> <origin>" wakes it (a grantee that is gone costs the
--   claim timeout; then the lease lapses and anyone may take the lock).
-- - someone was marked as waiting but no live entry is seen (expired, or queued after this
--   statement's snapshot): deletes the row and notifies "<lock_key>": the waiters look again.
-- A row of the owner whose lease lapsed is deleted too, and reported as not held (with a
-- notification when someone waits). Expired queue entries of the lock go on the contended path.
-- Returns no row (not held), or one row (left_count, grantee, token, wait_id): (0, NULL, 0, 0)
-- released, (-1, ...) lapsed (deleted, not held), (n > 0, ...) still held n times, (0, grantee, 0, 0)
-- handed over to claim, (0, grantee, token, wait id) granted outright.
WITH clock AS MATERIALIZED (SELECT clock_timestamp() AS now),
quick AS (
    DELETE FROM {table} l USING clock c
    WHERE l.lock_key = :key AND l.owner = :owner
      AND (l.lease_until <= c.now OR (l.hold_count = 1 AND (l.wait_until IS NULL OR l.wait_until <= c.now)))
    RETURNING l.lease_until > c.now AS held, COALESCE(l.wait_until > c.now, false) AS waited
),
cur AS MATERIALIZED (
    SELECT l.streak FROM {table} l, clock c
    WHERE l.lock_key = :key AND l.owner = :owner AND l.hold_count = 1 AND l.lease_until > c.now
      AND NOT EXISTS (SELECT 1 FROM quick)
),
head AS MATERIALIZED (
    SELECT w.owner, w.wait_id, w.lease_us FROM {waiters} w, clock c
    WHERE w.lock_key = :key AND w.expires > c.now AND w.owner <> :owner AND EXISTS (SELECT 1 FROM cur)
    ORDER BY w.since, w.owner
    LIMIT 1
),
mate AS MATERIALIZED (
    SELECT w.owner, w.wait_id, w.lease_us FROM {waiters} w, clock c
    WHERE w.lock_key = :key AND w.expires > c.now AND w.owner <> :owner AND w.wait_id > 0 AND w.lease_us > 0
      AND starts_with(w.owner, :client)
      AND EXISTS (SELECT 1 FROM head h WHERE NOT starts_with(h.owner, :client))
      AND (SELECT u.streak FROM cur u) < :max_streak::int
    ORDER BY w.since, w.owner
    LIMIT 1
),
next AS MATERIALIZED (
    SELECT x.owner, x.wait_id, x.lease_us, x.streak,
           COALESCE(starts_with(x.owner, :client), false) AND x.wait_id > 0 AND x.lease_us > 0 AS direct
    FROM (SELECT m.owner, m.wait_id, m.lease_us, (SELECT u.streak FROM cur u) + 1 AS streak FROM mate m
          UNION ALL
          SELECT h.owner, h.wait_id, h.lease_us, 0 FROM head h WHERE NOT EXISTS (SELECT 1 FROM mate)) x
),
handed AS (
    UPDATE {table} l SET owner = n.owner,
        hold_count  = CASE WHEN n.direct THEN 1 ELSE 0 END,
        token       = GREATEST(nextval('{sequence}'), l.token + 1),
        lease_until = c.now + (CASE WHEN n.direct THEN n.lease_us ELSE :claim::bigint END) * INTERVAL '1 microsecond',
        acquired_at = c.now,
        streak      = n.streak,
        grant_wait  = CASE WHEN n.direct THEN n.wait_id ELSE 0 END
    FROM clock c, next n
    WHERE l.lock_key = :key AND l.owner = :owner AND l.hold_count = 1 AND l.lease_until > c.now
    RETURNING n.owner AS grantee, n.direct, l.token, n.wait_id
),
freed AS (
    DELETE FROM {table} l USING clock c
    WHERE l.lock_key = :key AND l.owner = :owner AND l.hold_count = 1 AND l.lease_until > c.now
      AND EXISTS (SELECT 1 FROM cur) AND NOT EXISTS (SELECT 1 FROM next)
    RETURNING 1 AS one
),
lowered AS (
    UPDATE {table} l SET hold_count = l.hold_count - 1 FROM clock c
    WHERE l.lock_key = :key AND l.owner = :owner AND l.hold_count > 1 AND l.lease_until > c.now
      AND NOT EXISTS (SELECT 1 FROM quick)
    RETURNING l.hold_count
),
unqueued AS (
    DELETE FROM {waiters} w USING clock c
    WHERE w.lock_key = :key AND EXISTS (SELECT 1 FROM cur)
      AND (w.expires <= c.now OR w.owner IN (SELECT h.grantee FROM handed h))
)
SELECT CASE WHEN q.held THEN 0 ELSE -1 END AS left_count, NULL::text AS grantee, 0::bigint AS token, 0::bigint AS wait_id,
       CASE WHEN q.waited THEN pg_notify(:channel, :key)::text END AS notified
FROM quick q
UNION ALL
SELECT 0, h.grantee, CASE WHEN h.direct THEN h.token ELSE 0 END, CASE WHEN h.direct THEN h.wait_id ELSE 0 END,
       CASE WHEN NOT h.direct THEN pg_notify(:channel, :key || ':' || h.grantee || ' ' || :origin)::text END
FROM handed h
UNION ALL
SELECT 0, NULL, 0, 0, pg_notify(:channel, :key)::text FROM freed f
UNION ALL
SELECT w.hold_count, NULL, 0, 0, NULL FROM lowered w;

-- :name abandon
-- The owner stopped waiting (wait :wait): its queue entry goes, and a lock handed to it that it has
-- not claimed (its row with hold_count 0), or granted outright to this wait (grant_wait = :wait, held
-- once) and never taken, passes to the next live waiter to claim, or is deleted when none waits,
-- with a notification as a release makes (also to a waiter of this client: abandon is not a
-- release, nobody here passes a grant on). A hold the owner took in another wait stays.
-- Returns the grantee (or NULL) when a hand-over was passed on, else no row.
WITH clock AS MATERIALIZED (SELECT clock_timestamp() AS now),
left_queue AS (
    DELETE FROM {waiters} w WHERE w.lock_key = :key AND w.owner = :owner
),
next AS MATERIALIZED (
    SELECT w.owner FROM {waiters} w, clock c
    WHERE w.lock_key = :key AND w.expires > c.now AND w.owner <> :owner
    ORDER BY w.since, w.owner
    LIMIT 1
),
handed AS (
    UPDATE {table} l SET owner = n.owner, hold_count = 0, streak = 0, grant_wait = 0,
        token = GREATEST(nextval('{sequence}'), l.token + 1),
        lease_until = c.now + :claim::bigint * INTERVAL '1 microsecond', acquired_at = c.now
    FROM clock c, next n
    WHERE l.lock_key = :key AND l.owner = :owner
      AND (l.hold_count = 0 OR (l.hold_count = 1 AND l.grant_wait = :wait::bigint AND l.grant_wait > 0))
    RETURNING n.owner AS grantee
),
freed AS (
    DELETE FROM {table} l
    WHERE l.lock_key = :key AND l.owner = :owner
      AND (l.hold_count = 0 OR (l.hold_count = 1 AND l.grant_wait = :wait::bigint AND l.grant_wait > 0))
      AND NOT EXISTS (SELECT 1 FROM next)
    RETURNING 1 AS one
),
unqueued AS (
    DELETE FROM {waiters} w WHERE w.lock_key = :key AND w.owner IN (SELECT h.grantee FROM handed h)
)
SELECT h.grantee, pg_notify(:channel, :key || ':' || h.grantee)::text FROM handed h
UNION ALL
SELECT NULL, pg_notify(:channel, :key)::text FROM freed f;

-- :name renew
-- Sets the lease of every given hold to its length from now, in one statement for all holds due.
-- Returns the (lock_key, owner) pairs renewed; a hold not returned no longer exists (lost).
WITH clock AS MATERIALIZED (SELECT clock_timestamp() AS now)
UPDATE {table} l SET lease_until = c.now + r.lease_us * INTERVAL '1 microsecond'
FROM clock c, unnest(:keys::text[], :owners::text[], :leases::bigint[]) AS r(lock_key, owner, lease_us)
WHERE l.lock_key = r.lock_key AND l.owner = r.owner AND l.lease_until > c.now
RETURNING l.lock_key, l.owner;

-- :name forceRelease
-- Deletes the row whoever holds it and notifies.
-- Returns one row (whether the lease was still valid) or none (no row).
WITH freed AS (
    DELETE FROM {table} WHERE lock_key = :key RETURNING lease_until > clock_timestamp() AS held
)
SELECT f.held, pg_notify(:channel, :key)::text AS notified FROM freed f;

-- :name inspect
-- The holder, its hold count and the lease left (us), when the lease is valid.
SELECT owner, hold_count, (extract(epoch FROM lease_until - clock_timestamp()) * 1000000)::bigint
FROM {table} WHERE lock_key = :key AND lease_until > clock_timestamp();
