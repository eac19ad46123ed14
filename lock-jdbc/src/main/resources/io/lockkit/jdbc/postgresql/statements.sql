-- The statements of JdbcLockProvider on PostgreSQL: each operation is ONE statement, run in
-- autocommit on a connection of the provider's own (never inside a caller's transaction).
-- {table}, {waiters} and {sequence} are replaced by the configured, validated names; parameters are
-- JDBC '?'.
--
-- Time: every deadline and every "now" is the database's clock_timestamp(), read once per statement
-- in the "clock" CTE; a client's clock is never compared with anything, so client skew cannot break
-- exclusion. Leases are sent as lengths (microseconds), never as instants.
--
-- Isolation: READ COMMITTED (the default) is enough: every decision is taken by an INSERT ... ON
-- CONFLICT, UPDATE or DELETE on the row itself, which PostgreSQL re-checks against the latest
-- committed version of the row (and locks it) before it writes; plain reads only give hints.
--
-- Wake-ups: a release or force release calls pg_notify('<channel>', ...) in the same statement; the
-- notification is delivered at commit, i.e. when the row is already gone or handed over. Payload
-- "<lock_key>": the lock is free (one waiter per process looks); "<lock_key>:<owner>[ <origin>]": the
-- lock was handed to that waiting owner (only its process wakes it). A contended acquisition thus costs at
-- most three statements however many processes wait: the first attempt (queued), the attempt after
-- subscribing, and the claim.

-- :name acquire
-- Takes the lock, re-enters it, claims a hand-over, or takes over a lapsed lease; else reports how
-- long the lease lasts and, when the owner will wait, queues it (or refreshes its place).
-- Params: 1 the table's advisory namespace (int), 2 lock_key, 3 lock_key, 4 name, 5 owner,
-- 6 lease (us), 7 lock_key, 8 owner, 9 lock_key, 10 owner, 11 how long the owner will wait (us),
-- 12 lock_key, 13 claim timeout (us), 14 whether the owner will wait (boolean), 15 lock_key.
-- Returns one row: (token, NULL) when the owner holds the lock now; (NULL, remaining lease in us)
-- when another owner holds it; no row when the row appeared after this statement's snapshot
-- (another client took the lock at the same instant: busy, remaining unknown).
-- A row with hold_count 0 was handed to its owner by a release (see release): the owner claims it
-- with its own lease and keeps the token the release drew for it.
-- Token order: the acquisitions of one name run one at a time ("gate": a transaction-level
-- advisory lock on the key's hash, released when this statement commits; it is a mutex around one
-- statement, not the lock itself, and works through poolers in transaction mode). Without it, a new
-- row's token, drawn before its INSERT finds the key free, could be lower than the token of a hold
-- that another client took and released in between (seen under load on 2 CPUs). The new token of a
-- take-over is drawn after the row is locked and is at least the row's token + 1, so it exceeds
-- every token this name had even if the sequence were reset. A reentrant acquisition keeps the
-- token and never shortens the lease. "now" is read after the gate, so waiting there shortens no lease.
-- Queue: a waiting owner's entry lives until the holder's lease (as this statement saw it) or the
-- owner's wait ends, whichever is first, plus the claim timeout; the owner asks again by then.
WITH gate AS MATERIALIZED (SELECT pg_advisory_xact_lock(?::int, hashtext(?)) AS locked),
clock AS MATERIALIZED (SELECT clock_timestamp() AS now FROM gate),
taken AS (
    INSERT INTO {table} AS l (lock_key, name, owner, hold_count, token, lease_until, acquired_at)
    SELECT ?, ?, ?, 1, nextval('{sequence}'), c.now + ?::bigint * INTERVAL '1 microsecond', c.now FROM clock c
    ON CONFLICT (lock_key) DO UPDATE SET
        hold_count  = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.hold_count > 0
                           THEN l.hold_count + 1 ELSE 1 END,
        token       = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at
                           THEN l.token ELSE GREATEST(nextval('{sequence}'), l.token + 1) END,
        lease_until = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.hold_count > 0
                           THEN GREATEST(l.lease_until, EXCLUDED.lease_until) ELSE EXCLUDED.lease_until END,
        acquired_at = CASE WHEN l.owner = EXCLUDED.owner AND l.lease_until > EXCLUDED.acquired_at AND l.hold_count > 0
                           THEN l.acquired_at ELSE EXCLUDED.acquired_at END,
        owner       = EXCLUDED.owner,
        name        = EXCLUDED.name
    WHERE l.owner = EXCLUDED.owner OR l.lease_until <= EXCLUDED.acquired_at
    RETURNING l.token
),
dequeued AS (
    DELETE FROM {waiters} w
    WHERE w.lock_key = ? AND w.owner = ? AND EXISTS (SELECT 1 FROM taken)
),
queued AS (
    INSERT INTO {waiters} AS w (lock_key, owner, since, expires)
    SELECT ?, ?, c.now,
           LEAST(c.now + ?::bigint * INTERVAL '1 microsecond',
                 (SELECT h.lease_until FROM {table} h WHERE h.lock_key = ?))
           + ?::bigint * INTERVAL '1 microsecond'
    FROM clock c
    WHERE ?::boolean AND NOT EXISTS (SELECT 1 FROM taken)
    ON CONFLICT (lock_key, owner) DO UPDATE SET expires = GREATEST(w.expires, EXCLUDED.expires)
)
SELECT t.token, NULL::bigint AS remaining_us FROM taken t
UNION ALL
SELECT NULL::bigint, (extract(epoch FROM l.lease_until - c.now) * 1000000)::bigint
FROM {table} l, clock c
WHERE l.lock_key = ? AND NOT EXISTS (SELECT 1 FROM taken);

-- :name release
-- Lowers the owner's hold count. At zero, when an owner waits, hands the lock to the oldest live
-- waiter: the row becomes that owner's with hold_count 0, a new token and the claim timeout as its
-- lease, its queue entry goes, and the notification names it ("<lock_key>:<owner>"), so only its
-- process wakes it and it claims the lock with one acquire. (A grantee that is gone costs the claim
-- timeout: then the lease lapses and anyone may take the lock.) When nobody waits, deletes the row
-- (the token lives on in the sequence) and notifies "<lock_key>". A row of the owner whose lease
-- lapsed is deleted too, and reported as not held. Expired queue entries of the lock are removed.
-- The hand-over notification ends with " <releasing provider's id>": that provider woke its own
-- grantee already (Release.grantee) and skips it.
-- Params: 1 lock_key, 2 owner, 3 claim timeout (us), 4 lock_key, 5 owner, 6 lock_key, 7 owner,
-- 8 lock_key, 9 owner, 10 lock_key, 11 channel, 12 lock_key, 13 provider id, 14 channel, 15 lock_key.
-- Returns no row (not held), or one row: (0, grantee or NULL) released, (-1, NULL) lapsed (deleted,
-- not held), (n > 0, NULL) still held n times.
WITH clock AS MATERIALIZED (SELECT clock_timestamp() AS now),
next AS MATERIALIZED (
    SELECT w.owner FROM {waiters} w, clock c
    WHERE w.lock_key = ? AND w.expires > c.now AND w.owner <> ?
    ORDER BY w.since, w.owner
    LIMIT 1
),
handed AS (
    UPDATE {table} l SET owner = n.owner, hold_count = 0,
        token = GREATEST(nextval('{sequence}'), l.token + 1),
        lease_until = c.now + ?::bigint * INTERVAL '1 microsecond', acquired_at = c.now
    FROM clock c, next n
    WHERE l.lock_key = ? AND l.owner = ? AND l.hold_count = 1 AND l.lease_until > c.now
    RETURNING n.owner AS grantee
),
freed AS (
    DELETE FROM {table} l USING clock c
    WHERE l.lock_key = ? AND l.owner = ?
      AND ((l.hold_count <= 1 AND NOT EXISTS (SELECT 1 FROM next)) OR l.lease_until <= c.now)
    RETURNING l.lease_until > c.now AS held
),
lowered AS (
    UPDATE {table} l SET hold_count = l.hold_count - 1 FROM clock c
    WHERE l.lock_key = ? AND l.owner = ? AND l.hold_count > 1 AND l.lease_until > c.now
    RETURNING l.hold_count
),
unqueued AS (
    DELETE FROM {waiters} w USING clock c
    WHERE w.lock_key = ?
      AND (w.expires <= c.now OR w.owner IN (SELECT h.grantee FROM handed h))
)
SELECT 0 AS left_count, h.grantee, pg_notify(?, ? || ':' || h.grantee || ' ' || ?)::text AS notified FROM handed h
UNION ALL
SELECT CASE WHEN f.held THEN 0 ELSE -1 END, NULL, pg_notify(?, ?)::text FROM freed f
UNION ALL
SELECT w.hold_count, NULL, NULL FROM lowered w;

-- :name abandon
-- The owner stopped waiting: its queue entry goes, and a hand-over it has not claimed (its row with
-- hold_count 0) passes to the next live waiter, or is deleted when none waits, with a notification
-- as a release makes. Params: 1 lock_key, 2 owner, 3 lock_key, 4 owner, 5 claim timeout (us),
-- 6 lock_key, 7 owner, 8 lock_key, 9 owner, 10 lock_key, 11 channel, 12 lock_key, 13 channel,
-- 14 lock_key. Returns the grantee (or NULL) when a hand-over was passed on, else no row.
WITH clock AS MATERIALIZED (SELECT clock_timestamp() AS now),
left_queue AS (
    DELETE FROM {waiters} w WHERE w.lock_key = ? AND w.owner = ?
),
next AS MATERIALIZED (
    SELECT w.owner FROM {waiters} w, clock c
    WHERE w.lock_key = ? AND w.expires > c.now AND w.owner <> ?
    ORDER BY w.since, w.owner
    LIMIT 1
),
handed AS (
    UPDATE {table} l SET owner = n.owner,
        token = GREATEST(nextval('{sequence}'), l.token + 1),
        lease_until = c.now + ?::bigint * INTERVAL '1 microsecond', acquired_at = c.now
    FROM clock c, next n
    WHERE l.lock_key = ? AND l.owner = ? AND l.hold_count = 0
    RETURNING n.owner AS grantee
),
freed AS (
    DELETE FROM {table} l
    WHERE l.lock_key = ? AND l.owner = ? AND l.hold_count = 0 AND NOT EXISTS (SELECT 1 FROM next)
    RETURNING 1 AS one
),
unqueued AS (
    DELETE FROM {waiters} w WHERE w.lock_key = ? AND w.owner IN (SELECT h.grantee FROM handed h)
)
SELECT h.grantee, pg_notify(?, ? || ':' || h.grantee)::text FROM handed h
UNION ALL
SELECT NULL, pg_notify(?, ?)::text FROM freed f;

-- :name renew
-- Sets the lease of every given hold to its length from now, in one statement for all holds due.
-- Params: 1 lock_key[] (text), 2 owner[] (text), 3 lease[] (us, bigint).
-- Returns the (lock_key, owner) pairs renewed; a hold not returned no longer exists (lost).
WITH clock AS MATERIALIZED (SELECT clock_timestamp() AS now)
UPDATE {table} l SET lease_until = c.now + r.lease_us * INTERVAL '1 microsecond'
FROM clock c, unnest(?::text[], ?::text[], ?::bigint[]) AS r(lock_key, owner, lease_us)
WHERE l.lock_key = r.lock_key AND l.owner = r.owner AND l.lease_until > c.now
RETURNING l.lock_key, l.owner;

-- :name forceRelease
-- Deletes the row whoever holds it and notifies. Params: 1 lock_key, 2 channel, 3 lock_key.
-- Returns one row (whether the lease was still valid) or none (no row).
WITH freed AS (
    DELETE FROM {table} WHERE lock_key = ? RETURNING lease_until > clock_timestamp() AS held
)
SELECT f.held, pg_notify(?, ?)::text AS notified FROM freed f;

-- :name inspect
-- The holder, its hold count and the lease left (us), when the lease is valid. Params: 1 lock_key.
SELECT owner, hold_count, (extract(epoch FROM lease_until - clock_timestamp()) * 1000000)::bigint
FROM {table} WHERE lock_key = ? AND lease_until > clock_timestamp();
