package io.lockkit.jedis.internal;

import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.Pool;

/** Drops the idle pooled connections of a Jedis client, for when one may have gone back in a bad state. */
final class Pools {

    private static final System.Logger LOG = System.getLogger(Pools.class.getName());

    private Pools() {}

    static void discardIdle(UnifiedJedis jedis) {
        try {
            if (jedis instanceof RedisClient standalone) {
                standalone.getPool().clear();
            } else if (jedis instanceof RedisSentinelClient sentinel) {
                sentinel.getPrimaryNodesConnectionMap().values().forEach(Pool::clear);
            } else if (jedis instanceof RedisClusterClient cluster) {
                cluster.getClusterNodes().values().forEach(Pool::clear);
            } else {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "cannot drop the idle connections of a "
                                + jedis.getClass().getName()
                                + "; a connection refused on pub/sub may have returned to its pool");
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "dropping idle Redis connections failed", e);
        }
    }

    /**
     * Runs {@code pubSub} on {@code channels} until it ends, on a connection of {@code jedis}'s pool.
     * A standalone client's connection is borrowed here, so that one on which Redis refused a
     * command (an ACL without a channel: it may still be subscribed) is destroyed instead of going
     * back to the pool, where its pushed messages would be read as another caller's replies; with
     * {@code jedis.subscribe} it would be back in the pool before {@link #discardIdle} could drop it.
     */
    static void subscribe(UnifiedJedis jedis, JedisPubSub pubSub, String[] channels) {
        if (!(jedis instanceof RedisClient standalone)) {
            try {
                jedis.subscribe(pubSub, channels);
            } catch (JedisDataException e) {
                discardIdle(jedis);
                throw e;
            }
            return;
        }
        Connection connection = standalone.getPool().getResource();
        try {
            pubSub.proceed(connection, channels);
        } catch (RuntimeException e) {
            connection.setBroken(); // closed, not pooled: its state on the server is unknown
            throw e;
        } finally {
            connection.close();
        }
    }
}
