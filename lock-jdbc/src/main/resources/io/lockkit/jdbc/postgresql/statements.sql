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
-- Deletes the row whoever holds it and notifies.
-- Returns one row (whether the lease was still valid) or none (no row).
WITH freed AS (
    DELETE FROM lockkit_locks WHERE lock_key = :key RETURNING lease_until > clock_timestamp() AS held
)
SELECT f.held AS o_held, pg_notify(:channel, :key)::text AS notified FROM freed f;

-- :name inspect
-- The holder, its hold count, the lease left (us), the token and the live waiters (queue entries not
-- expired), when the lease is valid.
SELECT l.owner, l.hold_count, (extract(epoch FROM l.lease_until - clock_timestamp()) * 1000000)::bigint AS remaining_us,
       l.token, (SELECT count(*) FROM lockkit_locks_waiters w
                 WHERE w.lock_key = l.lock_key AND w.expires > clock_timestamp())::integer AS waiters
FROM lockkit_locks l WHERE l.lock_key = :key AND l.lease_until > clock_timestamp();

-- :name list
-- One page of held locks whose names start with :prefix (starts_with: no LIKE wildcards to escape),
-- as inspect reads them, by keyset pagination on the primary key: the rows after :after (the last
-- key of the previous page; '' for the first), at most :limit. The filter on name uses no index
-- (names may be longer than a btree entry takes), so a page with a rare prefix reads more rows than
-- it returns; the client's memory stays one page either way.
SELECT l.lock_key, l.name, l.owner, l.hold_count,
       (extract(epoch FROM l.lease_until - clock_timestamp()) * 1000000)::bigint AS remaining_us, l.token,
       (SELECT count(*) FROM lockkit_locks_waiters w
        WHERE w.lock_key = l.lock_key AND w.expires > clock_timestamp())::integer AS waiters
FROM lockkit_locks l WHERE l.lock_key > :after AND starts_with(l.name, :prefix) AND l.lease_until > clock_timestamp()
ORDER BY l.lock_key LIMIT :limit;
