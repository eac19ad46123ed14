-- The statements of JdbcLockProvider on H2 2.x (and the template for other databases without
-- PostgreSQL's INSERT ... ON CONFLICT ... RETURNING): each operation is ONE short transaction on a
-- connection of the provider's own, never inside a caller's transaction. An acquisition and a
-- release lock the lock's row first (SELECT ... FOR UPDATE), decide, write and commit: two or three
-- statements within one transaction of a few microseconds. A missing row cannot be locked; two
-- clients inserting it at once make one of them fail on the primary key, and it tries again.
-- {table} and {sequence} are replaced by the configured, validated names; parameters are JDBC '?'.
--
-- Time: every deadline and "now" is the database's CURRENT_TIMESTAMP(6), which H2 keeps constant
-- within a transaction; a client's clock is never compared with anything. Leases are sent as
-- lengths (microseconds).
--
-- Wake-ups: H2 has no notifications; waiters of other clients poll, at most every poll interval and
-- at the latest when the lease they were told of runs out; waiters of the releasing client are woken
-- by the provider itself.

-- :name lockRow
-- Params: 1 lock_key. Returns the row (owner, hold count, token, lease left in us), locked until commit.
SELECT owner, hold_count, token, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), lease_until)
FROM {table} WHERE lock_key = ? FOR UPDATE;

-- :name nextToken
-- A new fencing token; drawn after the row is locked (or inserted), so it exceeds every token that
-- name had: every earlier holder drew its token before, every later one waits for this transaction.
SELECT NEXT VALUE FOR {sequence};

-- :name insert
-- A free name: the row is inserted first (claiming the key) and given its token after, by setToken.
-- Params: 1 lock_key, 2 name, 3 owner, 4 lease (us).
INSERT INTO {table} (lock_key, name, owner, hold_count, token, lease_until, acquired_at)
VALUES (?, ?, ?, 1, 0, DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP(6)), CURRENT_TIMESTAMP(6));

-- :name setToken
-- Params: 1 token, 2 lock_key.
UPDATE {table} SET token = ? WHERE lock_key = ?;

-- :name takeOver
-- A lapsed lease taken by a new owner. Params: 1 name, 2 owner, 3 token, 4 lease (us), 5 lock_key.
UPDATE {table} SET name = ?, owner = ?, hold_count = 1, token = ?,
    lease_until = DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP(6)), acquired_at = CURRENT_TIMESTAMP(6)
WHERE lock_key = ?;

-- :name reenter
-- The holder again: one more hold, the same token, a lease never shortened. Params: 1 lease (us), 2 lock_key.
UPDATE {table} SET hold_count = hold_count + 1,
    lease_until = GREATEST(lease_until, DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP(6)))
WHERE lock_key = ?;

-- :name lower
-- One hold fewer, the row stays. Params: 1 lock_key.
UPDATE {table} SET hold_count = hold_count - 1 WHERE lock_key = ?;

-- :name delete
-- The last hold released, a lapsed row of the releasing owner, or a force release. Params: 1 lock_key.
DELETE FROM {table} WHERE lock_key = ?;

-- :name renew
-- One statement of the renewal batch (all holds due go out in one JDBC batch, one round trip).
-- Params: 1 lease (us), 2 lock_key, 3 owner. Update count 0: the hold no longer exists (lost).
UPDATE {table} SET lease_until = DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP(6))
WHERE lock_key = ? AND owner = ? AND lease_until > CURRENT_TIMESTAMP(6);

-- :name inspect
-- The holder, its hold count, the lease left (us) and the token, when the lease is valid. Params: 1
-- lock_key.
SELECT owner, hold_count, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), lease_until), token
FROM {table} WHERE lock_key = ? AND lease_until > CURRENT_TIMESTAMP(6);

-- :name list
-- One page of held locks whose names start with a prefix (compared with LEFT: no LIKE wildcards to
-- escape), by keyset pagination on the primary key. Params: 1 the last key of the previous page (''
-- for the first), 2 the prefix's length, 3 the prefix, 4 the page size.
SELECT lock_key, name, owner, hold_count, DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), lease_until), token
FROM {table} WHERE lock_key > ? AND LEFT(name, ?) = ? AND lease_until > CURRENT_TIMESTAMP(6)
ORDER BY lock_key LIMIT ?;
