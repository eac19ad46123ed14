package io.lockkit.redis.launcher;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * What may be done to a Redis server: one the launcher started (a process or container), or nothing
 * at all for a server somebody else runs ({@link #unowned(Endpoint)}). Implementations are
 * thread-safe; {@link #stop()} is idempotent.
 */
public interface ServerControl {

    /** Where the server answers. */
    Endpoint endpoint();

    /** The operating-system process id, when the launcher started a local process. */
    OptionalLong pid();

    /**
     * Stops the server and starts it again on the same port with the same arguments, returning when
     * it answers PING.
     *
     * @throws UnsupportedOperationException when the launcher does not own the server
     * @throws IllegalStateException when the server does not come back within {@code startupTimeout}
     */
    void restart(Duration startupTimeout);

    /** Stops what the launcher started and removes its files; does nothing for servers it does not own. */
    void stop();

    /** A few words for logs and messages, e.g. the binary or image used. */
    String describe();

    /** The control for a server the launcher did not start: it can neither restart nor stop it. */
    static ServerControl unowned(Endpoint endpoint) {
        return new ServerControl() {
            @Override
            public Endpoint endpoint() {
                return endpoint;
            }

            @Override
            public OptionalLong pid() {
                return OptionalLong.empty();
            }

            @Override
            public void restart(Duration startupTimeout) {
                throw new UnsupportedOperationException("the Redis server at " + endpoint.redactedUri()
                        + " is run by somebody else (not started here), so it cannot be restarted");
            }

            @Override
            public void stop() {
                // Not ours: leave it running.
            }

            @Override
            public String describe() {
                return "not started here";
            }
        };
    }
}
