package io.lockkit.jedis.internal;

import io.lockkit.LockException;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * What kind of Redis a provider talks to, and the wake-ups that fit it: whether the client is a
 * cluster's (by its type, or learned from a CROSSSLOT answer), whether wake-ups use sharded
 * pub/sub (a Redis 7+ Cluster: they stay on the lock's shard) or classic pub/sub, and the one
 * {@link WakeUps} of the provider, made on first use.
 *
 * <p>Design notes. The version check is I/O, made once, lazily; the wake-ups are created under a
 * {@link ReentrantLock}, not {@code synchronized}, since callers may be virtual threads. Once
 * {@link #close()} ran no wake-ups are created. Thread-safe.
 */
public final class Topology {

    private final UnifiedJedis jedis;
    private final String controlChannel;
    private final ThreadFactory threadFactory;
    private final Duration timeout;
    private final ReentrantLock setup = new ReentrantLock();
    private volatile boolean cluster;
    private volatile @Nullable String publishCommand;
    private volatile @Nullable WakeUps wakeUps;
    private boolean closed;

    public Topology(UnifiedJedis jedis, String controlChannel, ThreadFactory threadFactory, Duration timeout) {
        this.jedis = jedis;
        this.controlChannel = controlChannel;
        this.threadFactory = threadFactory;
        this.timeout = timeout;
        this.cluster = isCluster(jedis);
    }

    @SuppressWarnings("deprecation") // JedisCluster: still a cluster client applications may pass
    private static boolean isCluster(UnifiedJedis jedis) {
        return jedis instanceof RedisClusterClient || jedis instanceof redis.clients.jedis.JedisCluster;
    }

    /** Whether the client talks to a cluster. */
    public boolean cluster() {
        return cluster;
    }

    /** A CROSSSLOT answer showed a cluster behind a client type not recognized as one. */
    public void learnedCluster() {
        cluster = true;
    }

    /** {@code SPUBLISH} on a Redis 7+ Cluster, {@code PUBLISH} elsewhere. */
    public String publishCommand() {
        String p = publishCommand;
        if (p == null) {
            p = shardedPubSub() ? "SPUBLISH" : "PUBLISH";
            publishCommand = p;
        }
        return p;
    }

    /** Whether wake-ups use sharded pub/sub. */
    public boolean sharded() {
        return "SPUBLISH".equals(publishCommand());
    }

    private boolean shardedPubSub() {
        if (!(jedis instanceof RedisClusterClient clusterClient)) {
            return false;
        }
        try (Connection c = clusterClient.getConnectionFromSlot(0)) {
            String info = c.executeCommand(new CommandObject<>(
                    new CommandArguments(Protocol.Command.INFO).add("server"), BuilderFactory.STRING));
            for (String line : info.split("\r?\n", -1)) {
                if (line.startsWith("redis_version:")) {
                    return Integer.parseInt(
                                    line.substring("redis_version:".length()).split("\\.", -1)[0])
                            >= 7;
                }
            }
            return false;
        }
    }

    /** The wake-ups if made already, else null. */
    public @Nullable WakeUps existingWakeUps() {
        return wakeUps;
    }

    /**
     * The provider's wake-ups, made on first use.
     *
     * @throws LockException naming {@code lockName} once {@link #close()} ran
     */
    public WakeUps wakeUps(String lockName) {
        WakeUps w = wakeUps;
        if (w != null) {
            return w;
        }
        setup.lock();
        try {
            w = wakeUps;
            if (w == null) {
                if (closed) {
                    throw new LockException(lockName, "the Redis lock provider is closed");
                }
                w = sharded()
                        ? new ShardedWakeUps((RedisClusterClient) jedis, threadFactory, timeout)
                        : new WakeUpHub(jedis, controlChannel, threadFactory, timeout);
                wakeUps = w;
            }
            return w;
        } finally {
            setup.unlock();
        }
    }

    /** Closes the wake-ups, if any; none are made after this. */
    public void close() {
        WakeUps w;
        setup.lock();
        try {
            closed = true;
            w = wakeUps;
        } finally {
            setup.unlock();
        }
        if (w != null) {
            w.close();
        }
    }
}
