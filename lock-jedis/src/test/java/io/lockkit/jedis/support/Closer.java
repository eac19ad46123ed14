package io.lockkit.jedis.support;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a test opened, closed newest first: providers before the clients they use, clients before
 * the servers they reach. Thread-safe.
 */
public final class Closer implements AutoCloseable {

    private final Deque<AutoCloseable> open = new ArrayDeque<>();

    /** Registers {@code closeable} and returns it. */
    public synchronized <T extends AutoCloseable> T add(T closeable) {
        open.push(closeable);
        return closeable;
    }

    /** Closes everything, newest first; throws the first failure with the others suppressed in it. */
    @Override
    public void close() throws Exception {
        Exception failure = null;
        while (true) {
            AutoCloseable c;
            synchronized (this) {
                c = open.poll();
            }
            if (c == null) {
                break;
            }
            try {
                c.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Closes everything, newest first, ignoring failures: a case may have closed a resource itself. */
    public void closeQuietly() {
        try {
            close();
        } catch (Exception e) {
            // already closed, or a hold lost on purpose
        }
    }
}
