-- The statements of JdbcLockProvider on PostgreSQL: each operation is ONE statement, run in
-- autocommit on a connection of the provider's own (never inside a caller's transaction).
-- Written with the default names (lockkit_locks, lockkit_locks_acquire, ...), which the provider
-- replaces by the configured, validated ones. Parameters are named (:key, :waitId, ...) after the
-- components of the statement classes' argument records (AcquireStatement.Args, ...), through which
-- NamedSql binds them; SqlContractTest holds the two sides, and the functions' parameters and OUT
-- names in migration/, to one another. acquire, release and abandon call the lock table's PL/pgSQL
-- functions, which run only the SQL of the case at hand; the comments below say what each does.
--
-- Time: every deadline and every "now" is the database's clock_timestamp(), read once per operation
-- (a "clock" CTE, or a variable of the function); a client's clock is never compared with anything, so client skew cannot break
-- exclusion. Leases are sent as lengths (microseconds), never as instants.
--
-- Isolation: READ COMMITTED (the default) is enough: every decision is taken by an INSERT ... ON
-- CONFLICT, UPDATE or DELETE on the row itself, which PostgreSQL re-checks against the latest
-- committed version of the row (and locks it) before it writes, or by a function after it locked the
-- row (each statement in a function sees what was committed when it started); plain reads only give
-- hints.
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
-- when another owner holds it.
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
-- (Measured on the uncontended pair, PostgreSQL and client pinned to a CPU each, 5 alternating
-- rounds on a shared machine: the pair took 319 us (floor 171 us); without the gate 264, without
-- the sequence 245, without the queue look-up 250, without all three 231 us. The gate is what keeps
-- tokens in order and the sequence what keeps them increasing across row deletion and restarts;
-- both stay. See the README's benchmark section.)
-- Queue: a waiting owner's entry lives until the holder's lease (as this statement saw it) or the
-- owner's wait ends, whichever is first, plus the claim timeout; the owner asks again by then. The
-- lock row's wait_until is raised to that expiry in the same statement (the row is locked by the
-- INSERT ... ON CONFLICT already), so a release, which re-reads the latest row before it deletes it,
-- cannot miss a waiter that queued before it. A new row starts with the latest expiry of the entries
-- already queued for the name (waiters from before a take-over or a deletion).
SELECT o_token, o_remaining_us FROM lockkit_locks_acquire(:key::text, :name::text, :owner::text, :lease::bigint,
    :maxWait::bigint, :waitId::bigint, :claim::bigint, :gate::int, :lockTimeoutMs::int);

-- :name acquire.fair
-- A fair attempt (migration V3): as acquire, once no live place of another owner in the queue is
-- before the owner's own (or the owner holds the row already); else kept out, in its place. Returns
-- (token, NULL) or (NULL, remaining lease in us; NULL when no lease is valid).
SELECT o_token, o_remaining_us FROM lockkit_locks_acquire_fair(:key::text, :name::text, :owner::text, :lease::bigint,
    :maxWait::bigint, :waitId::bigint, :claim::bigint, :gate::int, :lockTimeoutMs::int);

-- :name release
-- Lowers the owner's hold count; at zero:
-- - nobody waits (wait_until NULL or past, read from the latest row version, which a waiter's
--   attempt raised before this DELETE could lock the row): deletes the row, no notification. The
--   common, uncontended case runs this one DELETE and nothing else. The token lives on in the
--   sequence.
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
-- - someone was marked as waiting but no live entry is left (all expired): deletes the row and
--   notifies "<lock_key>": the waiters look again.
-- A row of the owner whose lease lapsed is deleted too, and reported as not held (with a
-- notification when someone waits). Expired queue entries of the lock go on the contended path.
-- Returns one row (outcome, grantee, token, wait_id), the outcome in words (ReleaseStatement.OUTCOMES):
-- not_held, lapsed (the owner's row had lapsed and is deleted), still_held, freed, handed_to
-- (grantee; to claim) or granted (grantee, its token and wait id).
SELECT o_outcome, o_grantee, o_token, o_wait_id FROM lockkit_locks_release(:key::text, :owner::text, :client::text,
    :maxStreak::int, :claim::bigint, :channel::text, :origin::text, :lockTimeoutMs::int);

-- :name abandon
-- The owner stopped waiting (wait :waitId): its queue entry goes, and a lock handed to it that it has
-- not claimed (its row with hold_count 0), or granted outright to this wait (grant_wait = :wait, held
-- once) and never taken, passes to the next live waiter to claim, or is deleted when none waits,
-- with a notification as a release makes (also to a waiter of this client: abandon is not a
-- release, nobody here passes a grant on). A hold the owner took in another wait stays.
-- Returns the grantee when a hand-over was passed on, else NULL.
SELECT o_grantee FROM lockkit_locks_abandon(:key::text, :owner::text, :waitId::bigint, :claim::bigint, :channel::text,
    :lockTimeoutMs::int);

-- :name renew
-- Sets the lease of every given hold to its length from now, in one statement for all holds due
-- (each parameter is an array of that value over the holds: RenewStatement.Hold's components).
-- Returns the (lock_key, owner) pairs renewed; a hold not returned no longer exists (lost).
WITH clock AS MATERIALIZED (SELECT clock_timestamp() AS now)
UPDATE lockkit_locks l SET lease_until = c.now + r.lease_us * INTERVAL '1 microsecond'
FROM clock c, unnest(:key::text[], :owner::text[], :lease::bigint[]) AS r(lock_key, owner, lease_us)
WHERE l.lock_key = r.lock_key AND l.owner = r.owner AND l.lease_until > c.now
RETURNING l.lock_key, l.owner;

-- :name forceRelease
-- Deletes the row whoever holds it, and the name's shared holders, and notifies.
-- Returns one row (whether the lease was still valid) or none (no row).
WITH freed AS (
    DELETE FROM lockkit_locks WHERE lock_key = :key RETURNING lease_until > clock_timestamp() AS held
), shared AS (
    DELETE FROM lockkit_locks_holders WHERE lock_key = :key
)
SELECT f.held AS o_held, pg_notify(:channel, :key)::text AS notified FROM freed f;

-- :name inspect
-- The holders, one row each, with each shared holder's weight (0: the exclusive holder) and the
-- name's stored capacity (NULL: none): the exclusive holder of the row (its hold count, the lease left in us,
-- its token), else the row's valid shared holders (each with its own), when the row's lease is
-- valid; each row with the live waiters (queue entries not expired).
SELECT l.owner, l.hold_count, (extract(epoch FROM l.lease_until - clock_timestamp()) * 1000000)::bigint AS remaining_us,
       l.token, (SELECT count(*) FROM lockkit_locks_waiters w
                 WHERE w.lock_key = l.lock_key AND w.expires > clock_timestamp())::integer AS waiters,
       0 AS weight, (SELECT c.capacity FROM lockkit_locks_capacity c WHERE c.lock_key = l.lock_key) AS capacity
FROM lockkit_locks l WHERE l.lock_key = :key AND l.lease_until > clock_timestamp() AND l.owner <> 'shared holders'
UNION ALL
SELECT h.owner, h.hold_count, (extract(epoch FROM h.lease_until - clock_timestamp()) * 1000000)::bigint,
       h.token, (SELECT count(*) FROM lockkit_locks_waiters w
                 WHERE w.lock_key = l.lock_key AND w.expires > clock_timestamp())::integer,
       h.weight, (SELECT c.capacity FROM lockkit_locks_capacity c WHERE c.lock_key = l.lock_key)
FROM lockkit_locks l JOIN lockkit_locks_holders h ON h.lock_key = l.lock_key AND h.lease_until > clock_timestamp()
WHERE l.lock_key = :key AND l.lease_until > clock_timestamp();

-- :name list
-- One page of held locks whose names start with :prefix (starts_with: no LIKE wildcards to escape),
-- as inspect reads them, by keyset pagination on the primary key: the rows after :after (the last
-- key of the previous page; '' for the first), at most :limit; a row of shared holders comes back
-- once per valid holder (adjacent, the page still counts the row once). The filter on name uses no
-- index (names may be longer than a btree entry takes), so a page with a rare prefix reads more rows
-- than it returns; the client's memory stays one page either way.
SELECT p.lock_key, p.name, COALESCE(h.owner, p.owner) AS owner, COALESCE(h.hold_count, p.hold_count) AS hold_count,
       COALESCE((extract(epoch FROM h.lease_until - clock_timestamp()) * 1000000)::bigint, p.remaining_us) AS remaining_us,
       COALESCE(h.token, p.token) AS token, p.waiters
FROM (SELECT l.lock_key, l.name, l.owner, l.hold_count, l.token,
             (extract(epoch FROM l.lease_until - clock_timestamp()) * 1000000)::bigint AS remaining_us,
             (SELECT count(*) FROM lockkit_locks_waiters w
              WHERE w.lock_key = l.lock_key AND w.expires > clock_timestamp())::integer AS waiters
      FROM lockkit_locks l
      WHERE l.lock_key > :after AND starts_with(l.name, :prefix) AND l.lease_until > clock_timestamp()
      ORDER BY l.lock_key LIMIT :limit) p
LEFT JOIN lockkit_locks_holders h
    ON p.owner = 'shared holders' AND h.lock_key = p.lock_key AND h.lease_until > clock_timestamp()
ORDER BY p.lock_key;

-- Shared holds (migration V2): the steps of SharedHolds, each one statement of a short READ COMMITTED
-- transaction that locks the lock row first (shared.ensureRow, shared.lockRow), bound from
-- SharedStatement.Args. A name held shared has a lock row owned by 'shared holders' whose lease is
-- the longest of its holders' (see migration/V2__lockkit_holders.sql); the exclusive statements
-- above see it as a row held by someone else, until it lapses.

-- :name shared.ensureRow
-- The name's row, inserted as lapsed (it only serializes this attempt) when there is none.
INSERT INTO lockkit_locks (lock_key, name, owner, hold_count, token, lease_until, acquired_at)
VALUES (:key, :name, 'shared holders', 1, 0, clock_timestamp(), clock_timestamp())
ON CONFLICT (lock_key) DO NOTHING;

-- :name shared.lockRow
-- The lock row, locked until commit: owner, hold count, token, lease left (us).
SELECT l.owner, l.hold_count, l.token,
       (extract(epoch FROM l.lease_until - clock_timestamp()) * 1000000)::bigint AS remaining_us
FROM lockkit_locks l WHERE l.lock_key = :key FOR UPDATE;

-- :name shared.state
-- The name's shared holders (lapsed ones too), its stored capacity, and its live queued waiters, each
-- with its weight (0: exclusive) and its arrival (since, in us) in the token column.
SELECT 'holder' AS kind, h.owner, h.weight, h.hold_count, h.token,
       (extract(epoch FROM h.lease_until - clock_timestamp()) * 1000000)::bigint AS remaining_us
FROM lockkit_locks_holders h WHERE h.lock_key = :key
UNION ALL
SELECT 'capacity', NULL, c.capacity, 0, 0, 0 FROM lockkit_locks_capacity c WHERE c.lock_key = :key
UNION ALL
SELECT 'waiter', w.owner, w.weight, 0, (extract(epoch FROM w.since) * 1000000)::bigint, 0 FROM lockkit_locks_waiters w
WHERE w.lock_key = :key AND w.expires > clock_timestamp();

-- :name shared.clear
-- Every holder row of a name whose lock row lapsed or is gone (force release): none is valid.
DELETE FROM lockkit_locks_holders WHERE lock_key = :key;

-- :name shared.prune
-- The holders whose lease lapsed.
DELETE FROM lockkit_locks_holders WHERE lock_key = :key AND lease_until <= clock_timestamp();

-- :name shared.reenter
-- The holder again: one more hold, the same token, a lease never shortened.
UPDATE lockkit_locks_holders SET hold_count = hold_count + 1,
    lease_until = GREATEST(lease_until, clock_timestamp() + :lease * INTERVAL '1 microsecond')
WHERE lock_key = :key AND owner = :owner;

-- :name shared.extend
-- The lock row's lease at least this hold's (a shared row, or the exclusive row a downgrade stands beside).
UPDATE lockkit_locks SET lease_until = GREATEST(lease_until, clock_timestamp() + :lease * INTERVAL '1 microsecond')
WHERE lock_key = :key;

-- :name shared.storeCapacity
-- The capacity of a bounded name, stored by its first bounded claim admitted.
INSERT INTO lockkit_locks_capacity (lock_key, name, capacity) VALUES (:key, :name, :capacity);

-- :name shared.setCapacity
-- An operator's capacity for the name: stored, or replacing the stored one.
INSERT INTO lockkit_locks_capacity (lock_key, name, capacity) VALUES (:key, :name, :capacity)
ON CONFLICT (lock_key) DO UPDATE SET capacity = EXCLUDED.capacity;

-- :name shared.drawToken
-- A new hold's token, drawn after the lock row was locked, above the row's (:token is its token + 1).
SELECT GREATEST(nextval('lockkit_locks_token_seq'), :token);

-- :name shared.insertHolder
-- The new holder.
INSERT INTO lockkit_locks_holders (lock_key, owner, weight, hold_count, token, lease_until, acquired_at)
VALUES (:key, :owner, :weight, 1, :token, clock_timestamp() + :lease * INTERVAL '1 microsecond', clock_timestamp());

-- :name shared.mark
-- The lock row as the shared holders' row: their newest token, the longest lease.
UPDATE lockkit_locks SET name = :name, owner = 'shared holders', hold_count = 1, token = GREATEST(token, :token),
    acquired_at = CASE WHEN owner = 'shared holders' AND lease_until > clock_timestamp() THEN acquired_at
                       ELSE clock_timestamp() END,
    lease_until = GREATEST(lease_until, clock_timestamp() + :lease * INTERVAL '1 microsecond')
WHERE lock_key = :key;

-- :name shared.lower
-- One hold fewer of a valid holder that holds more than once. Update count 0: not such a holder.
UPDATE lockkit_locks_holders SET hold_count = hold_count - 1
WHERE lock_key = :key AND owner = :owner AND hold_count > 1 AND lease_until > clock_timestamp();

-- :name shared.delete
-- The valid holder's last hold. Update count 0: it holds nothing valid.
DELETE FROM lockkit_locks_holders WHERE lock_key = :key AND owner = :owner AND lease_until > clock_timestamp();

-- :name shared.deleteLapsed
-- Its lapsed row, if any (its release frees nothing of anyone else's).
DELETE FROM lockkit_locks_holders WHERE lock_key = :key AND owner = :owner;

-- :name shared.free
-- The shared row, when no valid holder is left. Update count 0: holders remain (or the row is exclusive).
DELETE FROM lockkit_locks l WHERE l.lock_key = :key AND l.owner = 'shared holders'
    AND NOT EXISTS (SELECT 1 FROM lockkit_locks_holders h WHERE h.lock_key = :key AND h.lease_until > clock_timestamp());

-- :name shared.shorten
-- The shared row's lease: the longest of the holders left.
UPDATE lockkit_locks SET lease_until = (SELECT max(h.lease_until) FROM lockkit_locks_holders h
                                        WHERE h.lock_key = :key AND h.lease_until > clock_timestamp())
WHERE lock_key = :key AND owner = 'shared holders'
    AND EXISTS (SELECT 1 FROM lockkit_locks_holders h WHERE h.lock_key = :key AND h.lease_until > clock_timestamp());

-- :name shared.notify
-- Wakes the name's waiters in every process (delivered at commit): a shared release frees room.
SELECT pg_notify(:channel, :key);

-- :name shared.convert
-- The exclusive holder's last hold, with valid shared holders beside it (a downgrade): the row
-- becomes theirs, with the longest of their leases. Update count 0: not that case.
UPDATE lockkit_locks SET owner = 'shared holders', hold_count = 1, streak = 0, grant_wait = 0,
    lease_until = COALESCE((SELECT max(h.lease_until) FROM lockkit_locks_holders h
                            WHERE h.lock_key = :key AND h.lease_until > clock_timestamp()), clock_timestamp())
WHERE lock_key = :key AND owner = :owner AND hold_count = 1 AND lease_until > clock_timestamp()
    AND EXISTS (SELECT 1 FROM lockkit_locks_holders h WHERE h.lock_key = :key AND h.lease_until > clock_timestamp());

-- :name renewShared.row
-- One statement of the shared renewal batch, first: the lock row's lease at least the renewed
-- hold's, when that hold is valid (locks the row before the holder's, as every step does).
UPDATE lockkit_locks SET lease_until = GREATEST(lease_until, clock_timestamp() + :lease * INTERVAL '1 microsecond')
WHERE lock_key = :key AND EXISTS (SELECT 1 FROM lockkit_locks_holders h
                                  WHERE h.lock_key = :key AND h.owner = :owner AND h.lease_until > clock_timestamp());

-- :name renewShared.holder
-- Then the holder's own lease. Update count 0: the hold no longer exists (lost).
UPDATE lockkit_locks_holders SET lease_until = clock_timestamp() + :lease * INTERVAL '1 microsecond'
WHERE lock_key = :key AND owner = :owner AND lease_until > clock_timestamp();

-- Fair claims (migration V3): the places of FairQueue, bound from FairStatement.Args, each one
-- statement in autocommit (a fair exclusive attempt is acquire.fair, above; these serve fair shared
-- claims). A fair claim's place is an entry of lockkit_locks_waiters, the queue acquire keeps, with
-- wait id 0 (a release never grants it outright, nor lets a later waiter of the releasing client
-- pass it) and weight 0 (exclusive) or k (a fair shared claim of k units); arrival order is since,
-- then owner. See migration/V3__lockkit_fair_queue.sql.

-- :name fair.queue
-- Takes a place (arrival now) or keeps it (a place that lapsed starts again at the end), until
-- :keep from now at least, and marks the row as waited for (wait_until), so that its release
-- hands the lock to the queue's head and wakes it.
WITH clock AS MATERIALIZED (SELECT clock_timestamp() AS now),
entry AS (
    INSERT INTO lockkit_locks_waiters AS w (lock_key, owner, since, expires, wait_id, lease_us, weight)
    SELECT :key, :owner, c.now, c.now + :keep * INTERVAL '1 microsecond', 0, :lease, :weight FROM clock c
    ON CONFLICT (lock_key, owner) DO UPDATE SET
        since = CASE WHEN w.expires > EXCLUDED.since THEN w.since ELSE EXCLUDED.since END,
        expires = GREATEST(w.expires, EXCLUDED.expires), wait_id = 0, lease_us = EXCLUDED.lease_us,
        weight = EXCLUDED.weight
    RETURNING w.expires)
UPDATE lockkit_locks l SET wait_until = GREATEST(l.wait_until, e.expires) FROM entry e WHERE l.lock_key = :key;

-- :name fair.leave
-- The owner's place, if any: it was admitted, or it stopped waiting (abandon).
DELETE FROM lockkit_locks_waiters WHERE lock_key = :key AND owner = :owner;
