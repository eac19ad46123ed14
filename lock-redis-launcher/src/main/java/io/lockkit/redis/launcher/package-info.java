/**
 * Starts Redis servers on this machine without a test framework: {@link io.lockkit.redis.launcher.RedisLauncher}
 * runs {@code redis-server} from the PATH, the binary bundled in embedded-redis, or a container when
 * Testcontainers and a container runtime are there. Quarkus Dev Services and lockkit's Redis test
 * fixture (lock-testkit-redis) both use it. Not a Redis client: {@link io.lockkit.redis.launcher.RespConnection}
 * speaks just enough RESP to start, check and stop a server.
 */
@NullMarked
package io.lockkit.redis.launcher;

import org.jspecify.annotations.NullMarked;
