-- lockkit lock table for MariaDB 10.6 or later (and MySQL 8.0, by design): migration 1, as lockkit
-- 0.1.0 released it.
--
-- A released migration never changes (lock-jdbc's ReleasedMigrationsTest holds its SHA-256); every
-- later change of the schema is a new file V<n>__<what>.sql in this folder. Usable as is, with the
-- default names below, from Flyway (location classpath:io/lockkit/jdbc/mariadb/migration: it keeps
-- each procedure whole) or Liquibase (sqlFile with splitStatements="false", on a connection with
-- allowMultiQueries=true: split, it would cut a procedure at its first END IF);
-- JdbcLockProvider.Builder.createSchema(true) runs it with the configured table name in place of
-- lockkit_locks (and of every name that starts with it), when the version table says it has not
-- run. Each statement is idempotent, so a partly applied file can be applied again. A procedure's
-- body starts with a line BEGIN and ends with a line END; (the mariadb command-line client needs
-- DELIMITER lines around each).
--
-- Written for what MariaDB and MySQL 8 share: no sequences (MySQL has none), no RETURNING, no
-- CREATE OR REPLACE PROCEDURE (a DROP ... IF EXISTS before each CREATE instead), VALUES() in
-- ON DUPLICATE KEY UPDATE (deprecated but working on MySQL 8), JSON_TABLE (MariaDB 10.6, MySQL 8).
--
-- The same layout as the PostgreSQL table (see postgresql/migration/V1__lockkit_locks.sql for the
-- columns), with times as microseconds since the epoch on the database's clock
-- (TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)): UTC, whatever the session's time
-- zone), so that no time zone or daylight-saving change can move a lease.
CREATE TABLE IF NOT EXISTS lockkit_locks (
    lock_key    CHAR(64)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
    name        TEXT         CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    owner       VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    hold_count  INT          NOT NULL,
    token       BIGINT       NOT NULL,
    lease_until BIGINT       NOT NULL,
    acquired_at BIGINT       NOT NULL,
    wait_until  BIGINT       NULL,
    streak      INT          NOT NULL DEFAULT 0,
    grant_wait  BIGINT       NOT NULL DEFAULT 0
) ENGINE = InnoDB;

-- Waiting owners per lock, oldest first (see the PostgreSQL table).
CREATE TABLE IF NOT EXISTS lockkit_locks_waiters (
    lock_key    CHAR(64)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    owner       VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    since       BIGINT       NOT NULL,
    expires     BIGINT       NOT NULL,
    wait_id     BIGINT       NOT NULL,
    lease_us    BIGINT       NOT NULL,
    PRIMARY KEY (lock_key, owner)
) ENGINE = InnoDB;

-- The fencing tokens' counter: one row. A token is GREATEST(last token + 1, the database's now in
-- microseconds), drawn as the last write of the transaction that locked the lock's row (so tokens
-- follow the order of holds; the counter row is locked only from the draw to the commit). The
-- time floor keeps tokens increasing even if the counter went back: a crash with
-- innodb_flush_log_at_trx_commit other than 1, a restored backup, a promoted replica. The clock
-- alone would not do either: it may step back; the counter does not.
CREATE TABLE IF NOT EXISTS lockkit_locks_tokens (
    id          TINYINT      NOT NULL PRIMARY KEY,
    last_token  BIGINT       NOT NULL
) ENGINE = InnoDB;

INSERT IGNORE INTO lockkit_locks_tokens (id, last_token) VALUES (1, 0);

-- The operations, one procedure each, called as one statement (CALL) that answers with one row.
-- Each runs one READ COMMITTED transaction that locks the lock's row before it decides anything
-- (SELECT ... FOR UPDATE, or the INSERT that claims a free name), reads the clock after that lock,
-- and bounds its lock waits itself (innodb_lock_wait_timeout for the call, set back after it). On an
-- error it rolls back and passes the error on. SQL SECURITY INVOKER: the caller's own grants apply
-- (see grants.sql); no account is needed beyond the application's.
DROP PROCEDURE IF EXISTS lockkit_locks_acquire;

CREATE PROCEDURE lockkit_locks_acquire(IN p_key CHAR(64) CHARACTER SET ascii COLLATE ascii_bin,
        IN p_name TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, IN p_owner VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
        IN p_lease BIGINT, IN p_max_wait BIGINT, IN p_wait_id BIGINT, IN p_claim BIGINT, IN p_lock_timeout_ms INT)
    MODIFIES SQL DATA SQL SECURITY INVOKER
BEGIN
    DECLARE v_now BIGINT;
    DECLARE v_owner VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_count INT;
    DECLARE v_token BIGINT;
    DECLARE v_lease BIGINT;
    DECLARE v_grant BIGINT;
    DECLARE v_waited BIGINT;
    DECLARE v_expires BIGINT;
    DECLARE v_remaining BIGINT DEFAULT NULL;
    DECLARE v_fresh BOOLEAN DEFAULT FALSE;
    DECLARE v_saved INT DEFAULT @@SESSION.innodb_lock_wait_timeout;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        SET SESSION innodb_lock_wait_timeout = v_saved;
        RESIGNAL;
    END;
    SET SESSION innodb_lock_wait_timeout = GREATEST(1, CEIL(p_lock_timeout_ms / 1000));
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    SET v_now = TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));
    -- Claims a free name (token 0 until it is drawn below), or locks the existing row.
    INSERT INTO lockkit_locks (lock_key, name, owner, hold_count, token, lease_until, acquired_at, wait_until, streak, grant_wait)
    VALUES (p_key, p_name, p_owner, 1, 0, v_now + p_lease, v_now, NULL, 0, 0)
    ON DUPLICATE KEY UPDATE hold_count = hold_count;
    SELECT l.owner, l.hold_count, l.token, l.lease_until, l.grant_wait INTO v_owner, v_count, v_token, v_lease, v_grant
    FROM lockkit_locks l WHERE l.lock_key = p_key FOR UPDATE;
    SET v_now = TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));
    IF v_token = 0 THEN
        -- Inserted just now: a free name. Waiters queued before (for an earlier holder) still wait.
        SET v_fresh = TRUE;
        SELECT MAX(w.expires) INTO v_waited FROM lockkit_locks_waiters w WHERE w.lock_key = p_key;
        UPDATE lockkit_locks_tokens t SET t.last_token = LAST_INSERT_ID(GREATEST(t.last_token + 1, v_now)) WHERE t.id = 1;
        SET v_token = LAST_INSERT_ID();
        UPDATE lockkit_locks l SET l.token = v_token, l.wait_until = v_waited, l.lease_until = v_now + p_lease,
            l.acquired_at = v_now
        WHERE l.lock_key = p_key;
    ELSEIF v_owner = p_owner AND v_lease > v_now THEN
        IF v_count = 0 THEN
            -- A hand-over to this owner, claimed with its own lease; the token the release drew stays.
            UPDATE lockkit_locks l SET l.hold_count = 1, l.lease_until = v_now + p_lease, l.acquired_at = v_now,
                l.grant_wait = 0
            WHERE l.lock_key = p_key;
        ELSEIF v_grant = p_wait_id AND v_grant > 0 THEN
            -- Granted outright to this very wait by a release of its own client: taken as it is.
            UPDATE lockkit_locks l SET l.lease_until = v_now + p_lease, l.grant_wait = 0 WHERE l.lock_key = p_key;
        ELSE
            -- Reentrant: one more hold, the same token, a lease never shortened.
            UPDATE lockkit_locks l SET l.hold_count = l.hold_count + 1, l.lease_until = GREATEST(l.lease_until, v_now + p_lease)
            WHERE l.lock_key = p_key;
        END IF;
    ELSEIF v_lease <= v_now THEN
        -- A lapsed lease, taken over with a new token: above every token the name had.
        UPDATE lockkit_locks_tokens t SET t.last_token = LAST_INSERT_ID(GREATEST(t.last_token + 1, v_now, v_token + 1))
        WHERE t.id = 1;
        SET v_token = LAST_INSERT_ID();
        UPDATE lockkit_locks l SET l.name = p_name, l.owner = p_owner, l.hold_count = 1, l.token = v_token,
            l.lease_until = v_now + p_lease, l.acquired_at = v_now, l.streak = 0, l.grant_wait = 0
        WHERE l.lock_key = p_key;
    ELSE
        -- Busy. Queue (or refresh the place) until the holder's lease or the wait ends, plus the
        -- claim timeout, and mark the row, so that the release knows someone waits.
        SET v_remaining = v_lease - v_now;
        SET v_token = NULL;
        IF p_max_wait > 0 THEN
            SET v_expires = LEAST(v_now + p_max_wait, v_lease) + p_claim;
            INSERT INTO lockkit_locks_waiters (lock_key, owner, since, expires, wait_id, lease_us)
            VALUES (p_key, p_owner, v_now, v_expires, p_wait_id, p_lease)
            ON DUPLICATE KEY UPDATE expires = GREATEST(expires, VALUES(expires)), wait_id = VALUES(wait_id),
                lease_us = VALUES(lease_us);
            UPDATE lockkit_locks l SET l.wait_until = GREATEST(COALESCE(l.wait_until, 0), v_expires) WHERE l.lock_key = p_key;
        END IF;
    END IF;
    IF v_token IS NOT NULL AND NOT (v_fresh AND v_waited IS NULL) THEN
        -- Holds the lock now: leaves the queue, if it may be in it (a free name nobody queued for:
        -- it cannot be).
        DELETE FROM lockkit_locks_waiters WHERE lock_key = p_key AND owner = p_owner;
    END IF;
    COMMIT;
    SET SESSION innodb_lock_wait_timeout = v_saved;
    SELECT v_token AS o_token, v_remaining AS o_remaining_us;
END;

DROP PROCEDURE IF EXISTS lockkit_locks_release;

CREATE PROCEDURE lockkit_locks_release(IN p_key CHAR(64) CHARACTER SET ascii COLLATE ascii_bin, IN p_owner VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
        IN p_client VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, IN p_max_streak INT, IN p_claim BIGINT, IN p_lock_timeout_ms INT)
    MODIFIES SQL DATA SQL SECURITY INVOKER
BEGIN
    DECLARE v_now BIGINT;
    DECLARE v_owner VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_count INT;
    DECLARE v_token BIGINT;
    DECLARE v_lease BIGINT;
    DECLARE v_waited BIGINT;
    DECLARE v_streak INT;
    DECLARE v_next VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL;
    DECLARE v_next_wait BIGINT;
    DECLARE v_next_lease BIGINT;
    DECLARE v_mate VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL;
    DECLARE v_next_streak INT DEFAULT 0;
    DECLARE v_direct BOOLEAN DEFAULT FALSE;
    DECLARE v_outcome VARCHAR(20);
    DECLARE v_out_token BIGINT DEFAULT 0;
    DECLARE v_out_wait BIGINT DEFAULT 0;
    DECLARE v_saved INT DEFAULT @@SESSION.innodb_lock_wait_timeout;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        SET SESSION innodb_lock_wait_timeout = v_saved;
        RESIGNAL;
    END;
    SET SESSION innodb_lock_wait_timeout = GREATEST(1, CEIL(p_lock_timeout_ms / 1000));
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    SET v_now = TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));
    -- The common case, nobody waits: one DELETE.
    DELETE FROM lockkit_locks WHERE lock_key = p_key AND owner = p_owner AND hold_count = 1 AND lease_until > v_now
        AND (wait_until IS NULL OR wait_until <= v_now);
    IF ROW_COUNT() = 1 THEN
        SET v_outcome = 'freed';
    ELSE
        SELECT l.owner, l.hold_count, l.token, l.lease_until, l.wait_until, l.streak
        INTO v_owner, v_count, v_token, v_lease, v_waited, v_streak
        FROM lockkit_locks l WHERE l.lock_key = p_key FOR UPDATE;
        SET v_now = TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));
        IF v_owner IS NULL OR v_owner <> p_owner OR v_count = 0 THEN
            SET v_outcome = 'not_held';
        ELSEIF v_lease <= v_now THEN
            DELETE FROM lockkit_locks WHERE lock_key = p_key;
            SET v_outcome = 'lapsed';
        ELSEIF v_count > 1 THEN
            UPDATE lockkit_locks l SET l.hold_count = l.hold_count - 1 WHERE l.lock_key = p_key;
            SET v_outcome = 'still_held';
        ELSE
            -- Someone waits: the next live waiter, oldest first, but a waiter of the releasing
            -- client ahead of an older one of another client for at most p_max_streak in a row.
            SELECT w.owner, w.wait_id, w.lease_us INTO v_next, v_next_wait, v_next_lease
            FROM lockkit_locks_waiters w
            WHERE w.lock_key = p_key AND w.expires > v_now AND w.owner <> p_owner
            ORDER BY w.since, w.owner LIMIT 1;
            IF v_next IS NULL THEN
                DELETE FROM lockkit_locks WHERE lock_key = p_key;
                DELETE FROM lockkit_locks_waiters WHERE lock_key = p_key AND expires <= v_now;
                SET v_outcome = 'freed';
            ELSE
                IF p_client IS NOT NULL AND LEFT(v_next, CHAR_LENGTH(p_client)) <> p_client
                        AND v_streak < p_max_streak THEN
                    -- (No row leaves the three variables as they are: the oldest waiter's.)
                    SELECT w.owner, w.wait_id, w.lease_us INTO v_mate, v_next_wait, v_next_lease
                    FROM lockkit_locks_waiters w
                    WHERE w.lock_key = p_key AND w.expires > v_now AND w.owner <> p_owner
                      AND LEFT(w.owner, CHAR_LENGTH(p_client)) = p_client AND w.wait_id > 0 AND w.lease_us > 0
                    ORDER BY w.since, w.owner LIMIT 1;
                    IF v_mate IS NOT NULL THEN
                        SET v_next = v_mate;
                        SET v_next_streak = v_streak + 1;
                    END IF;
                END IF;
                SET v_direct = p_client IS NOT NULL AND LEFT(v_next, CHAR_LENGTH(p_client)) = p_client
                    AND v_next_wait > 0 AND v_next_lease > 0;
                UPDATE lockkit_locks_tokens t SET t.last_token = LAST_INSERT_ID(GREATEST(t.last_token + 1, v_now, v_token + 1))
                WHERE t.id = 1;
                SET v_token = LAST_INSERT_ID();
                UPDATE lockkit_locks l SET l.owner = v_next, l.hold_count = IF(v_direct, 1, 0), l.token = v_token,
                    l.lease_until = v_now + IF(v_direct, v_next_lease, p_claim), l.acquired_at = v_now,
                    l.streak = v_next_streak, l.grant_wait = IF(v_direct, v_next_wait, 0)
                WHERE l.lock_key = p_key;
                DELETE FROM lockkit_locks_waiters WHERE lock_key = p_key AND (owner = v_next OR expires <= v_now);
                IF v_direct THEN
                    -- Granted outright: the releasing process passes the token to its waiter.
                    SET v_outcome = 'granted';
                    SET v_out_token = v_token;
                    SET v_out_wait = v_next_wait;
                ELSE
                    SET v_outcome = 'handed_to';
                END IF;
            END IF;
        END IF;
    END IF;
    COMMIT;
    SET SESSION innodb_lock_wait_timeout = v_saved;
    SELECT v_outcome AS o_outcome, v_next AS o_grantee, v_out_token AS o_token, v_out_wait AS o_wait_id;
END;

DROP PROCEDURE IF EXISTS lockkit_locks_abandon;

-- The owner stopped waiting (wait p_wait_id): the lock row first (as acquisitions and releases lock
-- it before the queue), then its queue entry goes; a hand-over it has not claimed, or a grant to
-- this wait it never took, passes to the next live waiter, or the lock is freed when none waits.
CREATE PROCEDURE lockkit_locks_abandon(IN p_key CHAR(64) CHARACTER SET ascii COLLATE ascii_bin, IN p_owner VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
        IN p_wait_id BIGINT, IN p_claim BIGINT, IN p_lock_timeout_ms INT)
    MODIFIES SQL DATA SQL SECURITY INVOKER
BEGIN
    DECLARE v_now BIGINT;
    DECLARE v_owner VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_count INT;
    DECLARE v_grant BIGINT;
    DECLARE v_token BIGINT;
    DECLARE v_next VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL;
    DECLARE v_saved INT DEFAULT @@SESSION.innodb_lock_wait_timeout;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        SET SESSION innodb_lock_wait_timeout = v_saved;
        RESIGNAL;
    END;
    SET SESSION innodb_lock_wait_timeout = GREATEST(1, CEIL(p_lock_timeout_ms / 1000));
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    SELECT l.owner, l.hold_count, l.grant_wait, l.token INTO v_owner, v_count, v_grant, v_token
    FROM lockkit_locks l WHERE l.lock_key = p_key FOR UPDATE;
    SET v_now = TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6));
    DELETE FROM lockkit_locks_waiters WHERE lock_key = p_key AND owner = p_owner;
    IF v_owner = p_owner AND (v_count = 0 OR (v_count = 1 AND p_wait_id > 0 AND v_grant = p_wait_id)) THEN
        SELECT w.owner INTO v_next FROM lockkit_locks_waiters w
        WHERE w.lock_key = p_key AND w.expires > v_now AND w.owner <> p_owner
        ORDER BY w.since, w.owner LIMIT 1;
        IF v_next IS NOT NULL THEN
            UPDATE lockkit_locks_tokens t SET t.last_token = LAST_INSERT_ID(GREATEST(t.last_token + 1, v_now, v_token + 1))
            WHERE t.id = 1;
            SET v_token = LAST_INSERT_ID();
            UPDATE lockkit_locks l SET l.owner = v_next, l.hold_count = 0, l.streak = 0, l.grant_wait = 0, l.token = v_token,
                l.lease_until = v_now + p_claim, l.acquired_at = v_now
            WHERE l.lock_key = p_key;
            DELETE FROM lockkit_locks_waiters WHERE lock_key = p_key AND owner = v_next;
        ELSE
            DELETE FROM lockkit_locks WHERE lock_key = p_key;
        END IF;
    END IF;
    COMMIT;
    SET SESSION innodb_lock_wait_timeout = v_saved;
    SELECT v_next AS o_grantee;
END;

-- The schema's version: one row per migration applied.
CREATE TABLE IF NOT EXISTS lockkit_locks_version (
    version     INT          NOT NULL PRIMARY KEY,
    description VARCHAR(200) NOT NULL,
    applied_at  TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB;

INSERT IGNORE INTO lockkit_locks_version (version, description)
VALUES (1, 'lock table, wait queue, token counter, procedures');
