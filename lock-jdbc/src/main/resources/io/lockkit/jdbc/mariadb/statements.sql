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

-- :name forceRelease.valid
-- Deletes the row whoever holds it, if its lease is valid. Update count 1: it was held.
DELETE FROM lockkit_locks
WHERE lock_key = :key AND lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- :name forceRelease.any
-- Else deletes a lapsed row. Update count 1: there was one; 0: the lock was free.
DELETE FROM lockkit_locks WHERE lock_key = :key;

-- :name inspect
-- The holder, its hold count, the lease left (us), the token and the live waiters, when the lease is
-- valid.
SELECT l.owner, l.hold_count, l.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) AS remaining_us,
       l.token, (SELECT COUNT(*) FROM lockkit_locks_waiters w
                 WHERE w.lock_key = l.lock_key
                   AND w.expires > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))) AS waiters
FROM lockkit_locks l
WHERE l.lock_key = :key AND l.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));

-- :name list
-- One page of held locks whose names start with :prefix (LEFT on the binary-collated name: no LIKE
-- wildcards to escape), by keyset pagination on the primary key.
SELECT l.lock_key, l.name, l.owner, l.hold_count,
       l.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) AS remaining_us, l.token,
       (SELECT COUNT(*) FROM lockkit_locks_waiters w
        WHERE w.lock_key = l.lock_key
          AND w.expires > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))) AS waiters
FROM lockkit_locks l
WHERE l.lock_key > :after AND LEFT(l.name, CHAR_LENGTH(:prefix)) = :prefix
  AND l.lease_until > TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))
ORDER BY l.lock_key LIMIT :limit;

-- :name watch
-- The state of every lock a provider's threads wait for, in one query: :keys is a JSON array of row
-- keys; a key without a row comes back with a NULL owner (free). Primary-key look-ups only.
SELECT k.lock_key, l.owner, l.hold_count, l.token,
       l.lease_until - TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) AS remaining_us
FROM JSON_TABLE(:keys, '$[*]' COLUMNS (lock_key CHAR(64) CHARACTER SET ascii PATH '$')) k
LEFT JOIN lockkit_locks l ON l.lock_key = k.lock_key COLLATE ascii_bin;
