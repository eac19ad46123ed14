package io.lockkit.jedis.internal;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * How a provider's calls reach Redis: refused once the provider is closed, retried once on a
 * fresh connection, failures translated by {@link RedisErrors}; script calls pipelined with
 * other threads' calls on a single node.
 *
 * <p>Design notes. On a single node ({@link RedisClient}) the lock and unlock calls of all threads
 * share {@value #BATCH_CONNECTIONS} pooled connections through a {@link CommandBatcher}; elsewhere
 * Jedis routes each call. A retry whose first attempt did run is harmless: scripts check the
 * owner, the core evens out a doubled hold count on release, and a release carries a nonce so
 * that it never lowers a count twice. Thread-safe.
 */
public final class RedisCalls {

    /**
     * Connections that lock and unlock calls share on a single node, pipelining the calls that
     * arrive together: two keep Redis and the client busy at once (one batch is written while the
     * other's replies are read), more only spread the same calls thinner.
     */
    static final int BATCH_CONNECTIONS = 2;

    private final UnifiedJedis jedis;
    /** Lock and unlock calls of all threads over at most two connections, on a single node; else null. */
    private final @Nullable CommandBatcher batcher;

    private volatile boolean closed;

    /**
     * @param ownsClient whether the provider made {@code jedis} (its pool is the provider's alone):
     *        then the batcher keeps its connections between batches instead of returning them
     */
    public RedisCalls(UnifiedJedis jedis, int maxConnections, Duration timeout, boolean ownsClient) {
        this.jedis = jedis;
        this.batcher = jedis instanceof RedisClient single
                ? new CommandBatcher(single.getPool(), Math.min(BATCH_CONNECTIONS, maxConnections), timeout, ownsClient)
                : null;
    }

    /** Returns the connections the batcher keeps to the pool, e.g. before the pool's idle ones are dropped. */
    public void dropKeptConnections() {
        if (batcher != null) {
            batcher.dropKept();
        }
    }

    /** One script call, without {@link #run}'s checks: pipelined with other threads' calls on a single node, routed by Jedis elsewhere. */
    public Object script(Scripts script, List<Arg> keys, List<Arg> args) {
        return batcher != null ? script.call(batcher, keys, args) : script.callEncoded(jedis, keys, args);
    }

    /**
     * Several script calls at once, without {@link #run}'s checks: on a single node queued
     * together in the batcher (one write, with other threads' calls that arrive together),
     * elsewhere in one pipeline (on a Cluster one batch per node). Replies in order.
     */
    public List<Object> scripts(List<Scripts.Invocation> invocations) {
        return batcher != null ? Scripts.callAll(batcher, invocations) : Scripts.callAll(jedis, invocations);
    }

    /** Batches the single-node batcher wrote so far (round trips, for tests); -1 without one. */
    public long batches() {
        return batcher != null ? batcher.batches() : -1;
    }

    /**
     * Runs a Redis call for lock {@code name}.
     *
     * @throws LockException once {@link #close()} ran (also when the close came while the call ran);
     *         {@link BackendUnavailableException} when Redis could not serve it, else a plain
     *         {@link LockException} for a command Redis refused
     */
    public <T> T run(@Nullable String name, Supplier<T> call) {
        checkOpen(name);
        try {
            try {
                return Interrupts.setAside(call);
            } catch (JedisConnectionException first) {
                // Pooled connections go stale when Redis restarts or fails over; one retry on a
                // fresh connection hides that.
                if (closed) {
                    throw first;
                }
                return Interrupts.setAside(call);
            }
        } catch (JedisException | IllegalStateException e) {
            throw closed ? closedException(name, e) : RedisErrors.translate(name, e);
        } catch (BackendUnavailableException e) {
            throw closed ? closedException(name, e) : e;
        }
    }

    /**
     * Fails once {@link #close()} ran.
     *
     * @throws LockException naming {@code name} (null: none) once {@link #close()} ran
     */
    public void checkOpen(@Nullable String name) {
        if (closed) {
            throw closedException(name, null);
        }
    }

    public boolean closed() {
        return closed;
    }

    /** From now on every call is refused. */
    public void close() {
        closed = true;
        if (batcher != null) {
            batcher.close();
        }
    }

    private static LockException closedException(@Nullable String name, @Nullable Throwable cause) {
        return new LockException(name, "the Redis lock provider is closed", cause);
    }
}
