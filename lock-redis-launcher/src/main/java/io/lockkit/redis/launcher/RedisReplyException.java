package io.lockkit.redis.launcher;

/**
 * A Redis server answered a command with an error reply; the message is the reply text, e.g.
 * {@code "ERR unknown command 'FOO'"}. Failures to reach the server are {@link java.io.IOException}s
 * instead. Callers may subclass it to give their own users a type of their own.
 */
public class RedisReplyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An error reply whose text is {@code reply}. */
    public RedisReplyException(String reply) {
        super(reply);
    }
}
