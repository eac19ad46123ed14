package io.lockkit.testkit.redis;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * What a {@link RedisServer} may do to the server behind it: a process or container the fixture
 * started, or nothing at all for a server reached through an explicit URI. Implementations are
 * thread-safe; {@link #stop()} is idempotent.
 */
interface ServerControl {

    /** Where the server answers. */
    Endpoint endpoint();

    /** The operating-system process id, when the fixture started a local process. */
    OptionalLong pid();

    /**
     * Stops the server and starts it again on the same port with the same arguments, returning when
     * it answers PING.
     *
     * @throws UnsupportedOperationException when the fixture does not own the server
     * @throws IllegalStateException when the server does not come back within {@code startupTimeout}
     */
    void restart(Duration startupTimeout);

    /** Stops what the fixture started and removes its files; does nothing for servers it does not own. */
    void stop();

    /** A few words for logs and messages, e.g. the binary or image used. */
    String describe();

    /** The control for a server the fixture did not start: it can neither restart nor stop it. */
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
                        + " was not started by the fixture (source EXPLICIT_URI), so it cannot be restarted");
            }

            @Override
            public void stop() {
                // Not ours: leave it running.
            }

            @Override
            public String describe() {
                return "not started by the fixture";
            }
        };
    }
}
