package io.lockkit.examples.demo;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import redis.clients.jedis.RedisClient;

/**
 * Where a worker's shared counter lives: a Redis key, or a row of {@link DemoBackend#COUNTER_TABLE};
 * {@link #forThread()} before the threads start, each thread then using its own {@link Counter}.
 * Neither read nor write is atomic with the other: only the lock keeps an increment whole.
 */
interface Counters extends AutoCloseable {

    /** The counter {@code key} of the backend at {@code uri} (a JDBC URL when {@code jdbc}). */
    static Counters open(boolean jdbc, String uri, String key) throws SQLException {
        return jdbc ? new Jdbc(uri, key) : new Redis(uri, key);
    }

    Counter forThread() throws SQLException;

    @Override
    void close() throws SQLException;

    /** One thread's view of the shared counter. */
    interface Counter {
        long read() throws SQLException;

        void write(long value) throws SQLException;
    }

    /** The counter as a Redis key; one client for all threads. */
    final class Redis implements Counters {
        private final RedisClient client;
        private final String key;

        Redis(String uri, String key) {
            this.client = RedisClient.create(URI.create(uri));
            this.key = key;
            client.ping();
        }

        @Override
        public Counter forThread() {
            return new Counter() {
                @Override
                public long read() {
                    String current = client.get(key);
                    return current == null ? 0 : Long.parseLong(current);
                }

                @Override
                public void write(long value) {
                    client.set(key, Long.toString(value));
                }
            };
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** The counter as a row of {@link DemoBackend#COUNTER_TABLE}; a connection per thread, in autocommit. */
    final class Jdbc implements Counters {
        private final String url;
        private final String name;
        private final Queue<Connection> connections = new ConcurrentLinkedQueue<>();

        Jdbc(String url, String name) throws SQLException {
            this.url = url;
            this.name = name;
            forThread().read();
        }

        @Override
        public Counter forThread() throws SQLException {
            Connection c = DriverManager.getConnection(url);
            connections.add(c);
            PreparedStatement select =
                    c.prepareStatement("SELECT value FROM " + DemoBackend.COUNTER_TABLE + " WHERE name = ?");
            PreparedStatement update =
                    c.prepareStatement("UPDATE " + DemoBackend.COUNTER_TABLE + " SET value = ? WHERE name = ?");
            select.setString(1, name);
            update.setString(2, name);
            return new Counter() {
                @Override
                public long read() throws SQLException {
                    try (ResultSet rs = select.executeQuery()) {
                        if (!rs.next()) {
                            throw new SQLException("the counter row " + name + " is gone");
                        }
                        return rs.getLong(1);
                    }
                }

                @Override
                public void write(long value) throws SQLException {
                    update.setLong(1, value);
                    update.executeUpdate();
                }
            };
        }

        @Override
        public void close() throws SQLException {
            SQLException first = null;
            for (Connection c : connections) {
                try {
                    c.close();
                } catch (SQLException e) {
                    first = first == null ? e : first;
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }
}
