package io.lockkit.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.benchmarks.JdbcBenchmarkMain.Peer;
import io.lockkit.jdbc.JdbcLockProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The lock libraries {@link JdbcBenchmarkMain} compares, each as a {@link Client} over its own
 * HikariCP pool of the same size: the raw-SQL floor, lockkit (with and without its core) and
 * Spring Integration's {@code JdbcLockRegistry}.
 */
final class JdbcPeers {

    private JdbcPeers() {}

    /** A lock library's client: a process's worth of pool and lock objects. */
    interface Client extends AutoCloseable {
        Lock lock(String name);

        @Override
        void close();
    }

    static Client open(Peer peer, JdbcDatabase db, int threads) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(peer == Peer.FLOOR ? db.url() + db.floorUrlParameters() : db.url());
        config.setMaximumPoolSize(threads + 1);
        config.setMinimumIdle(threads + 1);
        HikariDataSource pool = new HikariDataSource(config);
        return switch (peer) {
            case FLOOR -> floor(pool, db);
            case LOCKKIT -> lockkit(pool);
            case SPRING -> spring(pool);
            case LOCKKIT_SPI -> lockkitSpi(pool);
        };
    }

    /** lockkit's provider without the core: one acquire and one release statement a pair. */
    private static Client lockkitSpi(HikariDataSource pool) {
        JdbcLockProvider provider = JdbcLockProvider.create(pool);
        return new Client() {
            @Override
            public Lock lock(String name) {
                return new SpiLock(provider, name);
            }

            @Override
            public void close() {
                provider.close();
                pool.close();
            }
        };
    }

    /** A {@link Lock} of which the scenarios use {@code lock} and {@code unlock} only. */
    private abstract static class LockAndUnlockOnly implements Lock {
        @Override
        public void lockInterruptibly() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.concurrent.locks.Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }

    private static final class SpiLock extends LockAndUnlockOnly {
        private final JdbcLockProvider provider;
        private final String name;

        SpiLock(JdbcLockProvider provider, String name) {
            this.provider = provider;
            this.name = name;
        }

        @Override
        public void lock() {
            if (!provider.tryAcquire(new io.lockkit.spi.LockProvider.LockRequest(
                            name, "spi:1", Duration.ofSeconds(30), Duration.ZERO))
                    .isAcquired()) {
                throw new IllegalStateException("the SPI peer's name is taken: " + name);
            }
        }

        @Override
        public void unlock() {
            provider.release(name, "spi:1");
        }
    }

    private static Client lockkit(HikariDataSource pool) {
        JdbcLockProvider provider = JdbcLockProvider.create(pool);
        DistributedLockFactory f = DistributedLockFactory.create(provider);
        return new Client() {
            @Override
            public Lock lock(String name) {
                DistributedLock l = f.getLock(name);
                return l;
            }

            @Override
            public void close() {
                f.close();
                provider.close();
                pool.close();
            }
        };
    }

    private static Client spring(HikariDataSource pool) {
        DefaultLockRepository repository =
                new DefaultLockRepository(pool, UUID.randomUUID().toString());
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repository.start();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository);
        return new Client() {
            @Override
            public Lock lock(String name) {
                return registry.obtain(name);
            }

            @Override
            public void close() {
                repository.close();
                pool.close();
            }
        };
    }

    /** One upsert over an expired row to acquire, one DELETE to release; waiters poll every millisecond. */
    private static Client floor(HikariDataSource pool, JdbcDatabase db) {
        return new Client() {
            @Override
            public Lock lock(String name) {
                return new FloorLock(pool, name, db.floorAcquire(), db.floorRelease());
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }

    private static final class FloorLock extends LockAndUnlockOnly {
        private final DataSource pool;
        private final String name;
        private final String acquire;
        private final String release;

        FloorLock(DataSource pool, String name, String acquire, String release) {
            this.pool = pool;
            this.name = name;
            this.acquire = acquire;
            this.release = release;
        }

        @Override
        public void lock() {
            String owner = Thread.currentThread().getName() + "-" + System.identityHashCode(this);
            while (!attempt(owner)) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }

        private boolean attempt(String owner) {
            try (Connection c = pool.getConnection();
                    PreparedStatement s = c.prepareStatement(acquire)) {
                s.setString(1, name);
                s.setString(2, owner);
                if (s.execute()) {
                    try (ResultSet rs = s.getResultSet()) {
                        return rs.next(); // PostgreSQL: RETURNING 1 when taken
                    }
                }
                return s.getUpdateCount() > 0; // MariaDB: affected rows
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void unlock() {
            String owner = Thread.currentThread().getName() + "-" + System.identityHashCode(this);
            try (Connection c = pool.getConnection();
                    PreparedStatement s = c.prepareStatement(release)) {
                s.setString(1, name);
                s.setString(2, owner);
                if (s.executeUpdate() != 1) {
                    throw new IllegalStateException("floor lock " + name + " was not held by " + owner);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
