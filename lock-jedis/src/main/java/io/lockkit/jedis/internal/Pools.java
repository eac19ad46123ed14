package io.lockkit.jedis.internal;

import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.Pool;

/** Drops the idle pooled connections of a Jedis client, for when one may have gone back in a bad state. */
final class Pools {

    private static final System.Logger LOG = System.getLogger(Pools.class.getName());

    private Pools() {
    }

    static void discardIdle(UnifiedJedis jedis) {
        try {
            if (jedis instanceof RedisClient standalone) {
                standalone.getPool().clear();
            } else if (jedis instanceof RedisSentinelClient sentinel) {
                sentinel.getPrimaryNodesConnectionMap().values().forEach(Pool::clear);
            } else if (jedis instanceof RedisClusterClient cluster) {
                cluster.getClusterNodes().values().forEach(Pool::clear);
            } else {
                LOG.log(System.Logger.Level.WARNING, "cannot drop the idle connections of a " + jedis.getClass().getName()
                        + "; a connection refused on pub/sub may have returned to its pool");
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "dropping idle Redis connections failed", e);
        }
    }
}
