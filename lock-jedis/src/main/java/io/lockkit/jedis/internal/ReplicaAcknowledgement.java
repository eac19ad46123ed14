package io.lockkit.jedis.internal;

import io.lockkit.jedis.ReplicaAcknowledgementException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * Acquisition followed by {@code WAIT}: the lock counts as taken only once {@code replicas}
 * replicas acknowledged it within the timeout; with fewer, or when the {@code WAIT} fails, the
 * acquisition is undone before the failure surfaces, so a failed call never leaves the lock held.
 *
 * <p>Design notes. The script and the {@code WAIT} go in one pipeline (one round trip). A
 * pipeline does not follow NOSCRIPT or a cluster's MOVED; then both go one by one, the single
 * call reloading the script or following the redirection. Thread-safe; failures other than
 * {@link ReplicaAcknowledgementException} are Jedis exceptions, for the provider to translate.
 */
public final class ReplicaAcknowledgement {

    /** Gives back a hold the acquisition took (a release through the provider). */
    @FunctionalInterface
    public interface Undo {
        void release(String name, String owner);
    }

    private final UnifiedJedis jedis;
    private final int replicas;
    private final Duration timeout;

    public ReplicaAcknowledgement(UnifiedJedis jedis, int replicas, Duration timeout) {
        this.jedis = jedis;
        this.replicas = replicas;
        this.timeout = timeout;
    }

    /** Runs the acquisition {@code call} for lock {@code name} and waits for its acknowledgement; undoes it with {@code undo} on failure. */
    public AcquireScript.Reply acquire(String name, String base, AcquireScript.Call call, Undo undo) {
        List<String> keys = Arg.texts(call.keys());
        List<String> argv = Arg.texts(call.args());
        String owner = call.owner();
        AcquireScript.Reply reply;
        long acknowledged;
        try (AbstractPipeline p = jedis.pipelined()) {
            Response<Object> acquired = call.script().queue(p, keys, argv);
            Response<Long> waited = p.waitReplicas(base, replicas, timeout.toMillis());
            p.sync();
            try {
                reply = call.decoder().apply(acquired.get());
            } catch (JedisNoScriptException | JedisRedirectionException e) {
                reply = call.decoder().apply(call.script().call(jedis, keys, argv));
                acknowledged = undoIfFailing(
                        name, owner, reply, undo, () -> jedis.waitReplicas(base, replicas, timeout.toMillis()));
                return checked(name, owner, reply, acknowledged, undo);
            }
            acknowledged = undoIfFailing(name, owner, reply, undo, waited);
        }
        return checked(name, owner, reply, acknowledged, undo);
    }

    /** Runs the WAIT; if it fails after the script acquired, the acquisition is undone before the failure surfaces. */
    private static long undoIfFailing(
            String name, String owner, AcquireScript.Reply reply, Undo undo, Supplier<Long> waitCall) {
        try {
            return waitCall.get();
        } catch (RuntimeException e) {
            if (reply instanceof AcquireScript.Acquired) {
                try {
                    undo.release(name, owner);
                } catch (RuntimeException undone) {
                    e.addSuppressed(undone);
                }
            }
            throw e;
        }
    }

    private AcquireScript.Reply checked(
            String name, String owner, AcquireScript.Reply reply, long acknowledged, Undo undo) {
        if (reply instanceof AcquireScript.Acquired && acknowledged < replicas) {
            undo.release(name, owner);
            throw new ReplicaAcknowledgementException(name, replicas, acknowledged, timeout);
        }
        return reply;
    }
}
