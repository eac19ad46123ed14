-- The grants an application role needs to lock with lockkit on PostgreSQL, once the migrations ran:
-- data only, no DDL (JdbcLockProvider.Builder.createSchema(true) then only reads the version table).
-- Replace lockkit_app by the application's role, public by the lock table's schema, and lockkit_locks
-- by the configured table name. Functions are executable by PUBLIC unless a DBA revoked that; the
-- EXECUTE grants make the role independent of it. LISTEN, pg_notify and advisory locks need no grant.
GRANT USAGE ON SCHEMA public TO lockkit_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON lockkit_locks, lockkit_locks_waiters TO lockkit_app;
-- Migration 2 (shared holds): the shared holders and the stored capacities. Migration 3 (the fair
-- queue) adds the function lockkit_locks_acquire_fair.
GRANT SELECT, INSERT, UPDATE, DELETE ON lockkit_locks_holders, lockkit_locks_capacity TO lockkit_app;
GRANT SELECT ON lockkit_locks_version TO lockkit_app;
GRANT USAGE, SELECT ON SEQUENCE lockkit_locks_token_seq TO lockkit_app;
GRANT EXECUTE ON FUNCTION lockkit_locks_acquire, lockkit_locks_acquire_fair, lockkit_locks_release, lockkit_locks_abandon TO lockkit_app;
