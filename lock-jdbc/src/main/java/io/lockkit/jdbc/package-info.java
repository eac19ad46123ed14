/**
 * The JDBC lock backend: {@link io.lockkit.jdbc.JdbcLockProvider} over a lock table on PostgreSQL,
 * MariaDB/MySQL or H2, on the application's {@code DataSource} or a JDBC URL. Everything in {@code .internal} is
 * an implementation detail.
 */
@NullMarked
package io.lockkit.jdbc;

import org.jspecify.annotations.NullMarked;
