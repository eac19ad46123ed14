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

-- :name forceRelease
-- Deletes the row whoever holds it; returns whether its lease was valid, or no row (free).
SELECT lease_until > CURRENT_TIMESTAMP(6) AS o_held FROM OLD TABLE (DELETE FROM lockkit_locks WHERE lock_key = :key);

-- :name inspect
-- The holder, its hold count, the lease left (us), the token, when the lease is valid; H2 keeps no
-- queue (waiters -1).
SELECT owner, hold_count, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), lease_until) AS remaining_us, token, -1 AS waiters
FROM lockkit_locks WHERE lock_key = :key AND lease_until > CURRENT_TIMESTAMP(6);

-- :name list
-- One page of held locks whose names start with :prefix (compared with LEFT: no LIKE wildcards to
-- escape), by keyset pagination on the primary key: the rows after :after ('' for the first page).
SELECT lock_key, name, owner, hold_count, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), lease_until) AS remaining_us,
       token, -1 AS waiters
FROM lockkit_locks WHERE lock_key > :after AND LEFT(name, CHAR_LENGTH(:prefix)) = :prefix
    AND lease_until > CURRENT_TIMESTAMP(6)
ORDER BY lock_key LIMIT :limit;
