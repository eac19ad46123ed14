package io.lockkit.testkit.jdbc;

import java.util.OptionalLong;

/**
 * What a {@link PostgresServer} may do to the server behind it: a process or container the fixture
 * started, or nothing for a database reached through an explicit URL. Implementations are
 * thread-safe; {@link #close()} is idempotent.
 */
interface ServerControl {

    /** The JDBC URL of the server's database, with the user (and password, if any) as parameters. */
    String jdbcUrl();

    /** Whether the fixture started the server, so that it may stop and start it. */
    boolean owned();

    /** The server's (postmaster's) operating-system process id while it runs locally. */
    OptionalLong pid();

    /** Stops the server, keeping its data; returns when it no longer accepts connections. */
    void stop();

    /** Starts a stopped server again on the same port with the same data; returns when it accepts connections. */
    void start();

    /** Stops the server and removes its files; does nothing for servers it does not own. */
    void close();

    /** A few words for logs and messages, e.g. the binaries or image used. */
    String describe();

    /** The control for a database the fixture did not start: it can neither stop nor start it. */
    static ServerControl unowned(String jdbcUrl, String redacted) {
        return new ServerControl() {
            @Override
            public String jdbcUrl() {
                return jdbcUrl;
            }

            @Override
            public boolean owned() {
                return false;
            }

            @Override
            public OptionalLong pid() {
                return OptionalLong.empty();
            }

            @Override
            public void stop() {
                throw new UnsupportedOperationException("the database at " + redacted
                        + " was not started by the fixture (source EXPLICIT_URL), so it cannot be stopped");
            }

            @Override
            public void start() {
                throw new UnsupportedOperationException("the database at " + redacted
                        + " was not started by the fixture (source EXPLICIT_URL), so it cannot be started");
            }

            @Override
            public void close() {
                // Not ours: leave it running.
            }

            @Override
            public String describe() {
                return "not started by the fixture";
            }
        };
    }
}
