package io.lockkit.testkit.redis;

import io.lockkit.redis.launcher.RedisReplyException;

/**
 * A Redis server answered a command with an error reply; the message is the reply text, e.g.
 * {@code "ERR unknown command 'FOO'"} or {@code "MOVED 3999 127.0.0.1:7001"}. Failures to reach the
 * server are reported as {@link java.io.UncheckedIOException} instead.
 */
public final class RedisCommandException extends RedisReplyException {

    private static final long serialVersionUID = 1L;

    RedisCommandException(String reply) {
        super(reply);
    }
}
