package io.lockkit.jedis.internal;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import io.lockkit.spi.support.Causes;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisClusterException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * Which lockkit exception a Jedis failure becomes. {@link BackendUnavailableException} means
 * "Redis could not serve this now, trying later may work": it could not be reached, did not
 * answer in time, had no connection to give, or answered with a state of its own that passes
 * (loading, a busy script, a failover or cluster reconfiguration in progress). A command Redis
 * refused for any other reason ({@code NOPERM}, {@code WRONGTYPE}, {@code NOAUTH},
 * {@code WRONGPASS}, an unknown command) is a plain {@link LockException}: trying again will not
 * help, the configuration or the data must change. Every message ends with Jedis' own and what
 * its causes add ({@link Causes#describe}): "Failed to create socket" says little without the
 * {@code UnknownHostException} under it. Stateless and thread-safe.
 */
public final class RedisErrors {

    /**
     * Error codes of a server that is there but cannot serve now. Matched at the start of the
     * message or, for an error a script's {@code redis.call} raised, after the "user_script:N: "
     * that Redis 6.2 puts before it.
     */
    private static final Pattern PASSING = Pattern.compile(
            "(?:^|user_script:\\d+: )(?:LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF)\\b");

    private RedisErrors() {}

    /** The exception a caller of lock {@code name} sees for {@code e}, a failure of a Jedis call. */
    public static LockException translate(@Nullable String name, RuntimeException e) {
        if (e instanceof JedisConnectionException) {
            return new BackendUnavailableException(name, "Redis could not be reached: " + Causes.describe(e), e);
        }
        if (e instanceof JedisDataException refused) {
            return passing(refused)
                    ? new BackendUnavailableException(
                            name, "Redis cannot serve the lock command now: " + Causes.describe(e), e)
                    : new LockException(name, "Redis refused the lock command: " + Causes.describe(e), e);
        }
        if (e instanceof JedisException) {
            return new BackendUnavailableException(name, "Redis failed: " + Causes.describe(e), e);
        }
        if (e instanceof IllegalStateException) {
            // Jedis reports an exhausted or closed pool this way.
            return new BackendUnavailableException(name, "no Redis connection: " + Causes.describe(e), e);
        }
        throw e;
    }

    /**
     * A failed wake-up subscription: a {@link LockException} when Redis refused it (an ACL
     * without the channel), else {@link BackendUnavailableException}.
     */
    public static LockException subscriptionFailed(String name, String message, Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof JedisDataException refused && !passing(refused)) {
                return new LockException(name, message + ": " + refused.getMessage(), cause);
            }
        }
        Throwable inner = cause instanceof ExecutionException ? cause.getCause() : null;
        Throwable failure = inner != null ? inner : cause;
        return new BackendUnavailableException(name, message + ": " + Causes.describe(failure), cause);
    }

    /** Whether Redis answered with a state that passes, or routed the call elsewhere (a cluster's MOVED/ASK). */
    static boolean passing(JedisDataException e) {
        return e instanceof JedisRedirectionException
                || e instanceof JedisClusterException
                || e instanceof JedisBusyException
                || (e.getMessage() != null && PASSING.matcher(e.getMessage()).find());
    }
}
