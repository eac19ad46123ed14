package io.lockkit.benchmarks;

import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson's {@code RLock} with Redisson's default configuration, except the connections' name. */
final class RedissonBenchClient implements BenchClient {

    private final RedissonClient redisson;
    private final String name;

    RedissonBenchClient(String uri, String connectionName) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri).setClientName(connectionName);
        this.redisson = Redisson.create(config);
        this.name = connectionName;
    }

    RedissonClient redisson() {
        return redisson;
    }

    @Override
    public BenchLock lock(String lockName) {
        RLock lock = redisson.getLock(lockName);
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
        redisson.shutdown(0, 5, TimeUnit.SECONDS);
    }
}
