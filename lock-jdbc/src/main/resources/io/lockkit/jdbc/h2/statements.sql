-- The statements of JdbcLockProvider on H2 2.x. H2 has no stored routines, so an operation that must
-- decide from the row is a few statements in one short transaction on a connection of the provider's
-- own (never inside a caller's transaction): acquisition locks the lock's row first (SELECT ... FOR
-- UPDATE), decides, writes and commits. Every other operation is one statement in autocommit. A
-- section named <operation>.<step> is one step of that operation (see H2Dialect); its parameters are
-- components of the operation's argument record (AcquireStatement.Args, ...), bound by name by
-- NamedSql; SqlContractTest holds the two sides to each other. Written with the default names
-- (lockkit_locks, lockkit_locks_token_seq), which the provider replaces by the configured ones.
--
-- Time: every deadline and "now" is the database's CURRENT_TIMESTAMP(6), which H2 keeps constant
-- within a transaction; a client's clock is never compared with anything. Leases are sent as
-- lengths (microseconds).
--
-- Wake-ups: H2 has no notifications; waiters of other clients poll, at most every poll interval and
-- at the latest when the lease they were told of runs out; waiters of the releasing client are woken
-- by the provider itself.

-- :name acquire.lockRow
-- The lock's row (owner, hold count, token, lease left in us), locked until commit; none when free.
SELECT owner, hold_count, token, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), lease_until)
FROM lockkit_locks WHERE lock_key = :key FOR UPDATE;

-- :name acquire.insert
-- A free name: the row is inserted first (claiming the key; a client inserting it at the same time
-- fails on the primary key and reports the lock busy) and given its token after, by drawToken.
INSERT INTO lockkit_locks (lock_key, name, owner, hold_count, token, lease_until, acquired_at)
VALUES (:key, :name, :owner, 1, 0, DATEADD(MICROSECOND, :lease, CURRENT_TIMESTAMP(6)), CURRENT_TIMESTAMP(6));

-- :name acquire.drawToken
-- The new row's token, drawn after the insert claimed the key: every client that held the name before
-- drew its token earlier, and every later one waits for this transaction.
SELECT token FROM FINAL TABLE (UPDATE lockkit_locks SET token = NEXT VALUE FOR lockkit_locks_token_seq WHERE lock_key = :key);

-- :name acquire.reenter
-- The holder again: one more hold, the same token, a lease never shortened.
UPDATE lockkit_locks SET hold_count = hold_count + 1,
    lease_until = GREATEST(lease_until, DATEADD(MICROSECOND, :lease, CURRENT_TIMESTAMP(6)))
WHERE lock_key = :key;

-- :name acquire.takeOver
-- A lapsed lease taken by a new owner, with a token drawn now (the row is locked): above every token
-- the name had, also if the sequence were reset.
SELECT token FROM FINAL TABLE (
    UPDATE lockkit_locks SET name = :name, owner = :owner, hold_count = 1,
        token = GREATEST(NEXT VALUE FOR lockkit_locks_token_seq, token + 1),
        lease_until = DATEADD(MICROSECOND, :lease, CURRENT_TIMESTAMP(6)), acquired_at = CURRENT_TIMESTAMP(6)
    WHERE lock_key = :key);

-- :name acquire.queue
-- A waiting exclusive attempt that found shared holders (migration V2): queued, so that new shared
-- claims stay out (writer preference), until its wait or the holders' lease ends, plus the claim
-- timeout; its next attempt refreshes the entry.
MERGE INTO lockkit_locks_waiters (lock_key, owner, expires) KEY (lock_key, owner)
VALUES (:key, :owner, DATEADD(MICROSECOND, :claim, LEAST(DATEADD(MICROSECOND, :maxWait, CURRENT_TIMESTAMP(6)),
    (SELECT l.lease_until FROM lockkit_locks l WHERE l.lock_key = :key))));

-- :name acquire.dequeue
-- The queued attempt was admitted, or its wait ended: its entry goes.
DELETE FROM lockkit_locks_waiters WHERE lock_key = :key AND owner = :owner;

-- :name release.delete
-- The owner's last hold, or its lapsed row: deleted; returns whether the lease was still valid (freed)
-- or not (lapsed). No row: the owner holds more than once, or nothing (release.lower tells).
SELECT lease_until > CURRENT_TIMESTAMP(6) FROM OLD TABLE (
    DELETE FROM lockkit_locks WHERE lock_key = :key AND owner = :owner
        AND (hold_count = 1 OR lease_until <= CURRENT_TIMESTAMP(6)));

-- :name release.lower
-- One hold fewer, the row stays. Update count 0: the owner does not hold the lock.
UPDATE lockkit_locks SET hold_count = hold_count - 1
WHERE lock_key = :key AND owner = :owner AND hold_count > 1 AND lease_until > CURRENT_TIMESTAMP(6);

-- :name renew
-- One statement of the renewal batch (all holds due go out in one JDBC batch, one round trip).
-- Update count 0: the hold no longer exists (lost).
UPDATE lockkit_locks SET lease_until = DATEADD(MICROSECOND, :lease, CURRENT_TIMESTAMP(6))
WHERE lock_key = :key AND owner = :owner AND lease_until > CURRENT_TIMESTAMP(6);

-- :name forceRelease.holders
-- First the name's shared holders, if any (migration V2).
DELETE FROM lockkit_locks_holders WHERE lock_key = :key;

-- :name forceRelease
-- Deletes the row whoever holds it; returns whether its lease was valid, or no row (free).
SELECT lease_until > CURRENT_TIMESTAMP(6) AS o_held FROM OLD TABLE (DELETE FROM lockkit_locks WHERE lock_key = :key);

-- :name inspect
-- The holders, one row each, with each shared holder's weight (0: the exclusive holder) and the
-- name's stored capacity (NULL: none): the exclusive holder of the row (its hold count, the lease left in us,
-- its token), else the row's valid shared holders (each with its own), when the row's lease is
-- valid; H2 counts no waiters (-1).
SELECT l.owner, l.hold_count, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), l.lease_until) AS remaining_us, l.token, -1 AS waiters,
       0 AS weight, (SELECT c.capacity FROM lockkit_locks_capacity c WHERE c.lock_key = l.lock_key) AS capacity
FROM lockkit_locks l WHERE l.lock_key = :key AND l.lease_until > CURRENT_TIMESTAMP(6) AND l.owner <> 'shared holders'
UNION ALL
SELECT h.owner, h.hold_count, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), h.lease_until), h.token, -1,
       h.weight, (SELECT c.capacity FROM lockkit_locks_capacity c WHERE c.lock_key = l.lock_key)
FROM lockkit_locks l JOIN lockkit_locks_holders h ON h.lock_key = l.lock_key AND h.lease_until > CURRENT_TIMESTAMP(6)
WHERE l.lock_key = :key AND l.lease_until > CURRENT_TIMESTAMP(6);

-- :name list
-- One page of held locks whose names start with :prefix (compared with LEFT: no LIKE wildcards to
-- escape), by keyset pagination on the primary key: the rows after :after ('' for the first page);
-- a row of shared holders comes back once per valid holder (adjacent; the page counts it once).
SELECT p.lock_key, p.name, COALESCE(h.owner, p.owner) AS owner, COALESCE(h.hold_count, p.hold_count) AS hold_count,
       COALESCE(DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), h.lease_until), p.remaining_us) AS remaining_us,
       COALESCE(h.token, p.token) AS token, p.waiters
FROM (SELECT l.lock_key, l.name, l.owner, l.hold_count, l.token,
             DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), l.lease_until) AS remaining_us, -1 AS waiters
      FROM lockkit_locks l WHERE l.lock_key > :after AND LEFT(l.name, CHAR_LENGTH(:prefix)) = :prefix
          AND l.lease_until > CURRENT_TIMESTAMP(6)
      ORDER BY l.lock_key LIMIT :limit) p
LEFT JOIN lockkit_locks_holders h
    ON p.owner = 'shared holders' AND h.lock_key = p.lock_key AND h.lease_until > CURRENT_TIMESTAMP(6)
ORDER BY p.lock_key;

-- Shared holds (migration V2): the steps of SharedHolds, each one statement of a short transaction
-- that locks the lock row first (shared.ensureRow, shared.lockRow), bound from SharedStatement.Args
-- (see the PostgreSQL statements for what each does). A name held shared has a lock row owned by
-- 'shared holders' whose lease is the longest of its holders'.

-- :name shared.ensureRow
INSERT INTO lockkit_locks (lock_key, name, owner, hold_count, token, lease_until, acquired_at)
SELECT :key, :name, 'shared holders', 1, 0, CURRENT_TIMESTAMP(6), CURRENT_TIMESTAMP(6) FROM DUAL
WHERE NOT EXISTS (SELECT 1 FROM lockkit_locks l WHERE l.lock_key = :key);

-- :name shared.lockRow
SELECT owner, hold_count, token, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), lease_until) AS remaining_us
FROM lockkit_locks WHERE lock_key = :key FOR UPDATE;

-- :name shared.state
SELECT 'holder' AS kind, h.owner, h.weight, h.hold_count, h.token,
       DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), h.lease_until) AS remaining_us
FROM lockkit_locks_holders h WHERE h.lock_key = :key
UNION ALL
SELECT 'capacity', CAST(NULL AS VARCHAR(200)), c.capacity, 0, CAST(0 AS BIGINT), CAST(0 AS BIGINT)
FROM lockkit_locks_capacity c WHERE c.lock_key = :key
UNION ALL
SELECT 'waiter', w.owner, w.weight, 0, w.since, CAST(0 AS BIGINT)
FROM lockkit_locks_waiters w WHERE w.lock_key = :key AND w.expires > CURRENT_TIMESTAMP(6);

-- :name shared.clear
DELETE FROM lockkit_locks_holders WHERE lock_key = :key;

-- :name shared.prune
DELETE FROM lockkit_locks_holders WHERE lock_key = :key AND lease_until <= CURRENT_TIMESTAMP(6);

-- :name shared.reenter
UPDATE lockkit_locks_holders SET hold_count = hold_count + 1,
    lease_until = GREATEST(lease_until, DATEADD(MICROSECOND, :lease, CURRENT_TIMESTAMP(6)))
WHERE lock_key = :key AND owner = :owner;

-- :name shared.extend
UPDATE lockkit_locks SET lease_until = GREATEST(lease_until, DATEADD(MICROSECOND, :lease, CURRENT_TIMESTAMP(6))) WHERE lock_key = :key;

-- :name shared.storeCapacity
INSERT INTO lockkit_locks_capacity (lock_key, name, capacity) VALUES (:key, :name, :capacity);

-- :name shared.setCapacity
-- An operator's capacity for the name: stored, or replacing the stored one.
MERGE INTO lockkit_locks_capacity (lock_key, name, capacity) KEY (lock_key) VALUES (:key, :name, :capacity);

-- :name shared.drawToken
SELECT GREATEST(NEXT VALUE FOR lockkit_locks_token_seq, CAST(:token AS BIGINT));

-- :name shared.insertHolder
INSERT INTO lockkit_locks_holders (lock_key, owner, weight, hold_count, token, lease_until, acquired_at)
VALUES (:key, :owner, :weight, 1, :token, DATEADD(MICROSECOND, :lease, CURRENT_TIMESTAMP(6)), CURRENT_TIMESTAMP(6));

-- :name shared.mark
UPDATE lockkit_locks SET name = :name, owner = 'shared holders', hold_count = 1, token = GREATEST(token, :token),
    acquired_at = CASE WHEN owner = 'shared holders' AND lease_until > CURRENT_TIMESTAMP(6) THEN acquired_at ELSE CURRENT_TIMESTAMP(6) END,
    lease_until = GREATEST(lease_until, DATEADD(MICROSECOND, :lease, CURRENT_TIMESTAMP(6)))
WHERE lock_key = :key;

-- :name shared.lower
UPDATE lockkit_locks_holders SET hold_count = hold_count - 1
WHERE lock_key = :key AND owner = :owner AND hold_count > 1 AND lease_until > CURRENT_TIMESTAMP(6);

-- :name shared.delete
DELETE FROM lockkit_locks_holders WHERE lock_key = :key AND owner = :owner AND lease_until > CURRENT_TIMESTAMP(6);

-- :name shared.deleteLapsed
DELETE FROM lockkit_locks_holders WHERE lock_key = :key AND owner = :owner;

-- :name shared.free
DELETE FROM lockkit_locks WHERE lock_key = :key AND owner = 'shared holders'
    AND NOT EXISTS (SELECT 1 FROM lockkit_locks_holders h WHERE h.lock_key = :key AND h.lease_until > CURRENT_TIMESTAMP(6));

-- :name shared.shorten
UPDATE lockkit_locks SET lease_until = (SELECT MAX(h.lease_until) FROM lockkit_locks_holders h
                                        WHERE h.lock_key = :key AND h.lease_until > CURRENT_TIMESTAMP(6))
WHERE lock_key = :key AND owner = 'shared holders'
    AND EXISTS (SELECT 1 FROM lockkit_locks_holders h WHERE h.lock_key = :key AND h.lease_until > CURRENT_TIMESTAMP(6));

-- :name shared.convert
UPDATE lockkit_locks SET owner = 'shared holders', hold_count = 1,
    lease_until = COALESCE((SELECT MAX(h.lease_until) FROM lockkit_locks_holders h
                            WHERE h.lock_key = :key AND h.lease_until > CURRENT_TIMESTAMP(6)), CURRENT_TIMESTAMP(6))
WHERE lock_key = :key AND owner = :owner AND hold_count = 1 AND lease_until > CURRENT_TIMESTAMP(6)
    AND EXISTS (SELECT 1 FROM lockkit_locks_holders h WHERE h.lock_key = :key AND h.lease_until > CURRENT_TIMESTAMP(6));

-- :name renewShared.row
UPDATE lockkit_locks SET lease_until = GREATEST(lease_until, DATEADD(MICROSECOND, :lease, CURRENT_TIMESTAMP(6)))
WHERE lock_key = :key AND EXISTS (SELECT 1 FROM lockkit_locks_holders h
                                  WHERE h.lock_key = :key AND h.owner = :owner AND h.lease_until > CURRENT_TIMESTAMP(6));

-- :name renewShared.holder
UPDATE lockkit_locks_holders SET lease_until = DATEADD(MICROSECOND, :lease, CURRENT_TIMESTAMP(6))
WHERE lock_key = :key AND owner = :owner AND lease_until > CURRENT_TIMESTAMP(6);

-- Fair claims (migration V3): the steps of FairQueue, bound from FairStatement.Args (see the
-- PostgreSQL statements for what each does): a fair claim's place is an entry of
-- lockkit_locks_waiters with its weight; arrival order is since (from the token sequence), then
-- owner. H2 hands nothing over: the queue's head takes the free name at its next attempt, and the
-- places behind it keep every newcomer out meanwhile.

-- :name fair.check
SELECT EXISTS (SELECT 1 FROM lockkit_locks l WHERE l.lock_key = :key AND l.owner = :owner AND l.lease_until > CURRENT_TIMESTAMP(6)) AS holder,
       m.since IS NOT NULL AS queued,
       (SELECT COUNT(*) FROM lockkit_locks_waiters w
        WHERE w.lock_key = :key AND w.owner <> :owner AND w.expires > CURRENT_TIMESTAMP(6)
          AND (m.since IS NULL OR w.since < m.since OR (w.since = m.since AND w.owner < :owner))) AS ahead,
       (SELECT DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), l.lease_until) FROM lockkit_locks l
        WHERE l.lock_key = :key AND l.lease_until > CURRENT_TIMESTAMP(6)) AS remaining_us
FROM (SELECT (SELECT w.since FROM lockkit_locks_waiters w
              WHERE w.lock_key = :key AND w.owner = :owner AND w.expires > CURRENT_TIMESTAMP(6)) AS since) m;

-- :name fair.queue
MERGE INTO lockkit_locks_waiters w
USING (VALUES (CAST(:key AS VARCHAR(64)), CAST(:owner AS VARCHAR(200)))) AS s(lock_key, owner)
ON w.lock_key = s.lock_key AND w.owner = s.owner
WHEN MATCHED THEN UPDATE SET
    since = CASE WHEN w.expires > CURRENT_TIMESTAMP(6) THEN w.since ELSE NEXT VALUE FOR lockkit_locks_token_seq END,
    expires = GREATEST(w.expires, DATEADD(MICROSECOND, :keep, CURRENT_TIMESTAMP(6))), weight = :weight
WHEN NOT MATCHED THEN INSERT (lock_key, owner, expires, weight)
    VALUES (s.lock_key, s.owner, DATEADD(MICROSECOND, :keep, CURRENT_TIMESTAMP(6)), :weight);

-- :name fair.leave
DELETE FROM lockkit_locks_waiters WHERE lock_key = :key AND owner = :owner;
