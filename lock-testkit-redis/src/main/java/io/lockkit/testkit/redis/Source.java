package io.lockkit.testkit.redis;

/**
 * Where a {@link RedisServer} comes from. {@link RedisFixture} tries the sources in the order given
 * to {@link RedisFixture.Builder#sources(Source...)}, by default in declaration order.
 */
public enum Source {

    /**
     * A server somebody else runs, named by the {@code LOCKKIT_REDIS_URI} environment variable, the
     * {@code lockkit.redis.uri} system property or {@link RedisFixture.Builder#explicitUri(String)};
     * the fixture never starts, stops or restarts it.
     */
    EXPLICIT_URI,

    /** A {@code redis:7-alpine} container, used only when Testcontainers is present and a Docker engine answers. */
    TESTCONTAINERS,

    /** A {@code redis-server} executable found on the search path ({@code PATH} by default). */
    PATH,

    /** The {@code redis-server} binary bundled in {@code com.github.codemonstur:embedded-redis} (Redis 6.2). */
    EMBEDDED
}
