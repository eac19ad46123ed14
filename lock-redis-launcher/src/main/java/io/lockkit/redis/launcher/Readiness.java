package io.lockkit.redis.launcher;

import java.io.IOException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Polls a server until it answers PING (and, optionally, a further check passes). A server that is
 * still loading answers PING with an error, which counts as "not yet".
 */
public final class Readiness {

    /** Whether a freshly connected server is the one we are waiting for. */
    @FunctionalInterface
    public interface Check {
        /**
         * Whether the server behind {@code connection} is the awaited one.
         *
         * @throws IOException when asking it fails
         */
        boolean test(RespConnection connection) throws IOException;
    }

    private static final Duration POLL_INTERVAL = Duration.ofMillis(20);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofMillis(500);

    private Readiness() {}

    /** Returns whether the server answers PING within {@code timeout}, a single attempt. */
    public static boolean pings(Endpoint endpoint, Duration timeout) {
        try (RespConnection connection = RespConnection.open(endpoint, timeout)) {
            return "PONG".equals(connection.call("PING"));
        } catch (IOException | RedisReplyException e) {
            return false;
        }
    }

    /**
     * Waits until the server answers PING and {@code check} passes.
     *
     * @param keepTrying consulted between attempts; when it turns false the wait ends early
     * @return true when ready, false on timeout or when {@code keepTrying} turned false
     * @throws IllegalStateException when the waiting thread is interrupted (the flag is restored)
     */
    public static boolean await(Endpoint endpoint, Duration timeout, Check check, BooleanSupplier keepTrying) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!keepTrying.getAsBoolean()) {
                return false;
            }
            try (RespConnection connection = RespConnection.open(endpoint, ATTEMPT_TIMEOUT)) {
                if ("PONG".equals(connection.call("PING")) && check.test(connection)) {
                    return true;
                }
            } catch (IOException | RedisReplyException e) {
                // Not listening yet, or still loading: try again.
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            try {
                Thread.sleep(POLL_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for Redis at " + endpoint.redactedUri(), e);
            }
        }
    }

    /** The value of one field of an INFO reply, e.g. {@code redis_version}, or null. */
    public static @Nullable String infoField(@Nullable Object infoReply, String field) {
        if (!(infoReply instanceof String)) {
            return null;
        }
        String prefix = field + ":";
        for (String line : ((String) infoReply).split("\r?\n", -1)) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
        return null;
    }
}
