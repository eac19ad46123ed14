-- The statements of JdbcLockProvider on MariaDB (and MySQL 8): acquire, release and abandon each call
-- a procedure of the lock table (migration/V1__lockkit_locks.sql), one READ COMMITTED transaction that
-- answers with one row; the others are plain SQL in autocommit. Written with the default names
-- (lockkit_locks, lockkit_locks_acquire, ...), which the provider replaces by the configured ones.
-- Parameters are named after the components of the statement classes' argument records
-- (AcquireStatement.Args, ...), through which NamedSql binds them; MariaDbDialect declares the
-- components these statements do not take (no advisory gate, no notification channel).
-- SqlContractTest holds the two sides, and the procedures' parameters and result columns, together.
-- A section named <operation>.<step> is one step of that operation (see MariaDbDialect).
--
-- Time: every deadline and "now" is the database's clock, as microseconds since the epoch in UTC:
-- TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)), which is constant within a statement.
--
-- Wake-ups: MariaDB has no LISTEN/NOTIFY. Each provider's one poller thread runs watch over the keys
-- its threads wait for (see WakeUpPoller).

-- :name acquire
-- Takes, re-enters, claims, takes a grant or takes over; else reports the lease left and queues the
-- owner when it will wait. Returns (o_token, o_remaining_us), as on PostgreSQL.
CALL lockkit_locks_acquire(:key, :name, :owner, :lease, :maxWait, :waitId, :claim, :lockTimeoutMs);

-- :name release
-- Lowers the hold count; at zero frees the lock, or hands it to the next live waiter (outright to a
-- waiter of the releasing client). Returns (o_outcome, o_grantee, o_token, o_wait_id), the outcome
-- in words (ReleaseStatement.OUTCOMES).
CALL lockkit_locks_release(:key, :owner, :client, :maxStreak, :claim, :lockTimeoutMs);

-- :name abandon
-- The owner stopped waiting: leaves the queue and passes on a hand-over or grant it did not take.
-- Returns (o_grantee): whom a hand-over went on to, or NULL.
CALL lockkit_locks_abandon(:key, :owner, :waitId, :claim, :lockTimeoutMs);

-- :name renew
-- One statement of the renewal batch (all holds due go out in one JDBC batch). Update count 0: the
-- hold no longer exists (lost). The driver reports rows matched, not rows changed.
UPDATE lockkit_locks
SET lease_until = TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) + :lease
WHERE lock_key = :key AND owner = :owner AND lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- :name forceRelease.holders
-- First the name's shared holders, if any (migration V2).
DELETE FROM lockkit_locks_holders WHERE lock_key = :key;

-- :name forceRelease.valid
-- Deletes the row whoever holds it, if its lease is valid. Update count 1: it was held.
DELETE FROM lockkit_locks
WHERE lock_key = :key AND lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- :name forceRelease.any
-- Else deletes a lapsed row. Update count 1: there was one; 0: the lock was free.
DELETE FROM lockkit_locks WHERE lock_key = :key;

-- :name inspect
-- The holders, one row each, with each shared holder's weight (0: the exclusive holder) and the
-- name's stored capacity (NULL: none): the exclusive holder of the row (its hold count, the lease left in us,
-- its token), else the row's valid shared holders (each with its own), when the row's lease is
-- valid; each row with the live waiters.
SELECT l.owner, l.hold_count, l.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) AS remaining_us,
       l.token, (SELECT COUNT(*) FROM lockkit_locks_waiters w
                 WHERE w.lock_key = l.lock_key AND w.expires > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))) AS waiters,
       0 AS weight, (SELECT c.capacity FROM lockkit_locks_capacity c WHERE c.lock_key = l.lock_key) AS capacity
FROM lockkit_locks l
WHERE l.lock_key = :key AND l.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) AND l.owner <> 'shared holders'
UNION ALL
SELECT h.owner, h.hold_count, h.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)), h.token,
       (SELECT COUNT(*) FROM lockkit_locks_waiters w WHERE w.lock_key = l.lock_key AND w.expires > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))),
       h.weight, (SELECT c.capacity FROM lockkit_locks_capacity c WHERE c.lock_key = l.lock_key)
FROM lockkit_locks l JOIN lockkit_locks_holders h ON h.lock_key = l.lock_key AND h.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))
WHERE l.lock_key = :key AND l.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- :name list
-- One page of held locks whose names start with :prefix (LEFT on the binary-collated name: no LIKE
-- wildcards to escape), by keyset pagination on the primary key; a row of shared holders comes back
-- once per valid holder (adjacent; the page counts the row once).
SELECT p.lock_key, p.name, COALESCE(h.owner, p.owner) AS owner, COALESCE(h.hold_count, p.hold_count) AS hold_count,
       COALESCE(h.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)), p.remaining_us) AS remaining_us, COALESCE(h.token, p.token) AS token, p.waiters
FROM (SELECT l.lock_key, l.name, l.owner, l.hold_count, l.token, l.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) AS remaining_us,
             (SELECT COUNT(*) FROM lockkit_locks_waiters w
              WHERE w.lock_key = l.lock_key AND w.expires > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))) AS waiters
      FROM lockkit_locks l
      WHERE l.lock_key > :after AND LEFT(l.name, CHAR_LENGTH(:prefix)) = :prefix AND l.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))
      ORDER BY l.lock_key LIMIT :limit) p
LEFT JOIN lockkit_locks_holders h
    ON p.owner = 'shared holders' AND h.lock_key = p.lock_key AND h.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))
ORDER BY p.lock_key;

-- :name watch
-- The state of every lock a provider's threads wait for, in one query: :keys is a JSON array of row
-- keys; a key without a row comes back with a NULL owner (free). Primary-key look-ups only.
SELECT k.lock_key, l.owner, l.hold_count, l.token,
       l.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) AS remaining_us
FROM JSON_TABLE(:keys, '$[*]' COLUMNS (lock_key CHAR(64) CHARACTER SET ascii PATH '$')) k
LEFT JOIN lockkit_locks l ON l.lock_key = k.lock_key COLLATE ascii_bin;

-- Shared holds (migration V2): the steps of SharedHolds, each one statement of a short READ COMMITTED
-- transaction that locks the lock row first (shared.ensureRow, shared.lockRow), bound from
-- SharedStatement.Args (see the PostgreSQL statements for what each does). A name held shared has
-- a lock row owned by 'shared holders' whose lease is the longest of its holders'.

-- :name shared.ensureRow
INSERT INTO lockkit_locks (lock_key, name, owner, hold_count, token, lease_until, acquired_at, wait_until, streak, grant_wait)
VALUES (:key, :name, 'shared holders', 1, 0, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)), TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)), NULL, 0, 0)
ON DUPLICATE KEY UPDATE hold_count = hold_count;

-- :name shared.lockRow
SELECT l.owner, l.hold_count, l.token, l.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) AS remaining_us
FROM lockkit_locks l WHERE l.lock_key = :key FOR UPDATE;

-- :name shared.state
SELECT 'holder' AS kind, h.owner, h.weight, h.hold_count, h.token, h.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) AS remaining_us
FROM lockkit_locks_holders h WHERE h.lock_key = :key
UNION ALL
SELECT 'capacity', NULL, c.capacity, 0, 0, 0 FROM lockkit_locks_capacity c WHERE c.lock_key = :key
UNION ALL
SELECT 'waiter', w.owner, w.weight, 0, w.since, 0 FROM lockkit_locks_waiters w WHERE w.lock_key = :key AND w.expires > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- :name shared.clear
DELETE FROM lockkit_locks_holders WHERE lock_key = :key;

-- :name shared.prune
DELETE FROM lockkit_locks_holders WHERE lock_key = :key AND lease_until <= TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- :name shared.reenter
UPDATE lockkit_locks_holders SET hold_count = hold_count + 1, lease_until = GREATEST(lease_until, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) + :lease)
WHERE lock_key = :key AND owner = :owner;

-- :name shared.extend
UPDATE lockkit_locks SET lease_until = GREATEST(lease_until, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) + :lease) WHERE lock_key = :key;

-- :name shared.storeCapacity
INSERT INTO lockkit_locks_capacity (lock_key, name, capacity) VALUES (:key, :name, :capacity);

-- :name shared.setCapacity
-- An operator's capacity for the name: stored, or replacing the stored one.
INSERT INTO lockkit_locks_capacity (lock_key, name, capacity) VALUES (:key, :name, :capacity)
ON DUPLICATE KEY UPDATE capacity = VALUES(capacity);

-- :name shared.drawToken
-- The counter row's next token (as the procedures draw it), at least :token (the row's token + 1).
UPDATE lockkit_locks_tokens t SET t.last_token = LAST_INSERT_ID(GREATEST(t.last_token + 1, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)), :token)) WHERE t.id = 1;

-- :name shared.readToken
SELECT LAST_INSERT_ID();

-- :name shared.insertHolder
INSERT INTO lockkit_locks_holders (lock_key, owner, weight, hold_count, token, lease_until, acquired_at)
VALUES (:key, :owner, :weight, 1, :token, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) + :lease, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)));

-- :name shared.mark
UPDATE lockkit_locks SET name = :name,
    acquired_at = IF(owner = 'shared holders' AND lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)), acquired_at, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))),
    owner = 'shared holders', hold_count = 1, token = GREATEST(token, :token),
    lease_until = GREATEST(lease_until, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) + :lease)
WHERE lock_key = :key;

-- :name shared.lower
UPDATE lockkit_locks_holders SET hold_count = hold_count - 1
WHERE lock_key = :key AND owner = :owner AND hold_count > 1 AND lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- :name shared.delete
DELETE FROM lockkit_locks_holders WHERE lock_key = :key AND owner = :owner AND lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- :name shared.deleteLapsed
DELETE FROM lockkit_locks_holders WHERE lock_key = :key AND owner = :owner;

-- :name shared.free
DELETE FROM lockkit_locks WHERE lock_key = :key AND owner = 'shared holders'
    AND NOT EXISTS (SELECT 1 FROM lockkit_locks_holders h WHERE h.lock_key = :key AND h.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)));

-- :name shared.shorten
UPDATE lockkit_locks l JOIN (SELECT MAX(h.lease_until) AS longest FROM lockkit_locks_holders h
                             WHERE h.lock_key = :key AND h.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))) m ON m.longest IS NOT NULL
SET l.lease_until = m.longest
WHERE l.lock_key = :key AND l.owner = 'shared holders';

-- :name shared.convert
UPDATE lockkit_locks l JOIN (SELECT MAX(h.lease_until) AS longest FROM lockkit_locks_holders h
                             WHERE h.lock_key = :key AND h.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))) m ON m.longest IS NOT NULL
SET l.owner = 'shared holders', l.hold_count = 1, l.streak = 0, l.grant_wait = 0, l.lease_until = m.longest
WHERE l.lock_key = :key AND l.owner = :owner AND l.hold_count = 1 AND l.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- :name renewShared.row
UPDATE lockkit_locks SET lease_until = GREATEST(lease_until, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) + :lease)
WHERE lock_key = :key AND EXISTS (SELECT 1 FROM lockkit_locks_holders h
                                  WHERE h.lock_key = :key AND h.owner = :owner AND h.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)));

-- :name renewShared.holder
UPDATE lockkit_locks_holders SET lease_until = TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) + :lease
WHERE lock_key = :key AND owner = :owner AND lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- Fair claims (migration V3): the steps of FairQueue, bound from FairStatement.Args (see the
-- PostgreSQL statements for what each does): a fair claim's place is an entry of
-- lockkit_locks_waiters with wait id 0 and its weight; arrival order is since, then owner.

-- :name fair.check
SELECT EXISTS (SELECT 1 FROM lockkit_locks l WHERE l.lock_key = :key AND l.owner = :owner AND l.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))) AS holder,
       m.since IS NOT NULL AS queued,
       (SELECT COUNT(*) FROM lockkit_locks_waiters w
        WHERE w.lock_key = :key AND w.owner <> :owner AND w.expires > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))
          AND (m.since IS NULL OR w.since < m.since OR (w.since = m.since AND w.owner < :owner))) AS ahead,
       (SELECT l.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) FROM lockkit_locks l WHERE l.lock_key = :key AND l.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))) AS remaining_us
FROM (SELECT (SELECT w.since FROM lockkit_locks_waiters w
              WHERE w.lock_key = :key AND w.owner = :owner AND w.expires > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))) AS since) m;

-- :name fair.queue
-- (since is assigned before expires: ON DUPLICATE KEY UPDATE assigns left to right.)
INSERT INTO lockkit_locks_waiters (lock_key, owner, since, expires, wait_id, lease_us, weight)
VALUES (:key, :owner, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)), TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) + :keep, 0, :lease, :weight)
ON DUPLICATE KEY UPDATE since = IF(expires > VALUES(since), since, VALUES(since)),
    expires = GREATEST(expires, VALUES(expires)), wait_id = 0, lease_us = VALUES(lease_us), weight = VALUES(weight);

-- :name fair.mark
-- Then the row as waited for, so that its release hands the lock to the queue's head.
UPDATE lockkit_locks SET wait_until = GREATEST(COALESCE(wait_until, 0), TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) + :keep) WHERE lock_key = :key;

-- :name fair.leave
DELETE FROM lockkit_locks_waiters WHERE lock_key = :key AND owner = :owner;
