package io.lockkit.testkit;

/**
 * A server a test fixture started for tests (a Redis or PostgreSQL process, a cluster, a database):
 * what {@link ServerExtension} hands to a test class and stops after it.
 */
public interface TestServer extends AutoCloseable {

    /** Stops the server and frees what it holds; a second call does nothing. */
    @Override
    void close();
}
