/**
 * Running Redis servers for tests and demos: {@link io.lockkit.testkit.redis.RedisFixture} hands them
 * out from an explicit URI, Testcontainers, {@code redis-server} on the PATH or the binary bundled in
 * embedded-redis; {@link io.lockkit.testkit.redis.RedisExtension} does the same for JUnit Jupiter
 * test classes. Everything else in the package is internal.
 */
@NullMarked
package io.lockkit.testkit.redis;

import org.jspecify.annotations.NullMarked;
