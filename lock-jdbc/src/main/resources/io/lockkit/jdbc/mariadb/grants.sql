-- The grants an application account needs to lock with lockkit on MariaDB (or MySQL 8), once the
-- migrations ran: data only, no DDL (JdbcLockProvider.Builder.createSchema(true) then only reads the
-- version table). Replace 'lockkit_app'@'%' by the application's account, lockkit_db by the lock
-- table's database, and lockkit_locks by the configured table name. The procedures run with the
-- caller's rights (SQL SECURITY INVOKER), hence the table grants; GET_LOCK, JSON_TABLE and setting the
-- session's innodb_lock_wait_timeout need none.
GRANT SELECT, INSERT, UPDATE, DELETE ON lockkit_db.lockkit_locks TO 'lockkit_app'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON lockkit_db.lockkit_locks_waiters TO 'lockkit_app'@'%';
GRANT SELECT, UPDATE ON lockkit_db.lockkit_locks_tokens TO 'lockkit_app'@'%';
-- Migration 2 (shared holds): the shared holders and the stored capacities.
GRANT SELECT, INSERT, UPDATE, DELETE ON lockkit_db.lockkit_locks_holders TO 'lockkit_app'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON lockkit_db.lockkit_locks_capacity TO 'lockkit_app'@'%';
GRANT SELECT ON lockkit_db.lockkit_locks_version TO 'lockkit_app'@'%';
GRANT EXECUTE ON PROCEDURE lockkit_db.lockkit_locks_acquire TO 'lockkit_app'@'%';
GRANT EXECUTE ON PROCEDURE lockkit_db.lockkit_locks_release TO 'lockkit_app'@'%';
GRANT EXECUTE ON PROCEDURE lockkit_db.lockkit_locks_abandon TO 'lockkit_app'@'%';
