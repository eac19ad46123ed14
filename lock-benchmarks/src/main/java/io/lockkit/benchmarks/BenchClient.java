package io.lockkit.benchmarks;

/**
 * One client of a lock library, playing one process: its own connections, threads and pub/sub.
 * Thread-safe; {@link #lock(String)} may be called from any thread.
 */
interface BenchClient extends AutoCloseable {

    /** A lock of this name owned by the calling thread (as {@code java.util.concurrent.locks.Lock}). */
    BenchLock lock(String name);

    /** The name this client's connections carry in {@code CLIENT LIST}. */
    String connectionName();

    @Override
    void close();

    /** A named lock, owned by the thread that locks it. */
    interface BenchLock {
        /** Waits as long as it takes. */
        void lock();

        void unlock();
    }

    /** Opens a client of {@code library} on the Redis at {@code uri}; its connections are named {@code connectionName}. */
    static BenchClient open(Library library, String uri, String connectionName) {
        return switch (library) {
            case FLOOR -> new FloorClient(uri, connectionName);
            case LOCKKIT -> LockkitClient.open(uri, connectionName);
            case REDISSON -> new RedissonBenchClient(uri, connectionName);
        };
    }
}
