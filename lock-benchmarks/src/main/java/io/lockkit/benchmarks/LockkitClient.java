package io.lockkit.benchmarks;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.spi.LockProvider;

/** lockkit as an application uses it: {@code DistributedLockFactory} over a {@code JedisLockProvider}, default settings. */
final class LockkitClient implements BenchClient {

    private final DistributedLockFactory factory;
    private final String name;

    LockkitClient(DistributedLockFactory factory, String name) {
        this.factory = factory;
        this.name = name;
    }

    static LockkitClient open(String uri, String connectionName) {
        return new LockkitClient(DistributedLockFactory.create(provider(uri, connectionName)), connectionName);
    }

    /** The provider with default settings except the connections' name. */
    static LockProvider provider(String uri, String connectionName) {
        return JedisLockProvider.builder().uri(uri).clientName(connectionName).build();
    }

    DistributedLockFactory factory() {
        return factory;
    }

    @Override
    public BenchLock lock(String lockName) {
        DistributedLock lock = factory.getLock(lockName);
        return new BenchLock() {
            @Override
            public void lock() {
                lock.lock();
            }

            @Override
            public void unlock() {
                lock.unlock();
            }
        };
    }

    @Override
    public String connectionName() {
        return name;
    }

    @Override
    public void close() {
        factory.close();
    }
}
