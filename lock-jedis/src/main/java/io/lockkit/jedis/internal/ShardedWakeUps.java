package io.lockkit.jedis.internal;

import io.lockkit.LockException;
import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.support.OutageTracker;
import io.lockkit.spi.support.WakeUpListeners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Sharded pub/sub on a Redis 7 Cluster: one connection and thread per shard that has waiters, each
 * subscribed (SSUBSCRIBE) to the channels whose slots that shard owns. A release publishes with
 * SPUBLISH on the lock's own shard, so wake-ups no longer cross the whole cluster bus.
 *
 * <p>Design: a channel's shard is found from its slot ({@code getConnectionFromSlot}), and the
 * connection borrowed to learn it becomes that shard's subscription connection when the shard is
 * new. A shard whose connection breaks, or whose slots moved (failover, resharding), ends; its
 * channels are routed again from the current slot map and their listeners are told that
 * notifications may have been missed. A shard with no channels left ends at once (Jedis stops
 * reading when Redis counts no subscription), and the next subscriber for that node starts a new
 * one; the factory's subscription linger keeps this rare.
 */
public final class ShardedWakeUps implements WakeUps {

    private static final System.Logger LOG = System.getLogger(ShardedWakeUps.class.getName());

    private final RedisClusterClient cluster;
    private final ThreadFactory threadFactory;
    private final Duration timeout;
    private final ReentrantLock lock = new ReentrantLock();
    private final WakeUpListeners listeners = new WakeUpListeners();
    private final Map<HostAndPort, Shard> shards = new HashMap<>();
    private final Map<String, Shard> routes = new HashMap<>();
    private volatile boolean closed;

    public ShardedWakeUps(RedisClusterClient cluster, ThreadFactory threadFactory, Duration timeout) {
        this.cluster = cluster;
        this.threadFactory = threadFactory;
        this.timeout = timeout;
    }

    @Override
    public Subscription subscribe(String channel, String lockName, WakeUpListener listener) {
        if (closed) {
            throw new LockException(lockName, "the Redis lock provider is closed");
        }
        listeners.add(channel, listener);
        Subscription subscription = () -> unsubscribe(channel, listener);
        CompletableFuture<Void> confirmed = null;
        try {
            confirmed = Interrupts.setAside(() -> route(channel)); // it may wait for a pooled connection
            WakeUps.awaitConfirmation(confirmed, timeout, listener);
        } catch (ExecutionException | RuntimeException e) {
            subscription.close();
            throw RedisErrors.subscriptionFailed(lockName, "the sharded wake-up subscription failed", e);
        }
        return subscription;
    }

    /** Subscribes the channel on the shard that owns its slot; the future completes on confirmation. */
    private CompletableFuture<Void> route(String channel) {
        lock.lock();
        try {
            Shard shard = routes.get(channel);
            if (shard != null && !shard.ended) {
                return shard.confirmation(channel);
            }
            int slot = JedisClusterCRC16.getSlot(channel);
            Connection connection = cluster.getConnectionFromSlot(slot);
            HostAndPort node = connection.getHostAndPort();
            shard = shards.get(node);
            if (shard == null || shard.ended) {
                connection = live(connection, slot);
                shard = new Shard(node, connection, channel);
                shards.put(node, shard);
            } else {
                connection.close();
                shard.add(channel);
            }
            routes.put(channel, shard);
            return shard.confirmation(channel);
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code connection} if it answers, else a new one to the slot's node: a subscription must not
     * start on an idle pooled connection that died with the others (command connections killed, a
     * proxy restart), which would cost a failed attempt and a back-off for nothing.
     */
    private Connection live(Connection connection, int slot) {
        try {
            connection.ping();
            return connection;
        } catch (RuntimeException e) {
            connection.setBroken();
            connection.close();
            Pools.discardIdle(cluster);
            return cluster.getConnectionFromSlot(slot);
        }
    }

    private void unsubscribe(String channel, WakeUpListener listener) {
        lock.lock();
        try {
            if (!listeners.remove(channel, listener)) {
                return;
            }
            Shard shard = routes.remove(channel);
            if (shard != null) {
                shard.remove(channel);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int channels() {
        return listeners.size();
    }

    @Override
    public void close() {
        List<Shard> all;
        lock.lock();
        try {
            closed = true;
            all = new ArrayList<>(shards.values());
            shards.clear();
            routes.clear();
        } finally {
            lock.unlock();
        }
        for (Shard s : all) {
            s.end();
        }
        // Parked waiters try again and learn that the provider is closed.
        listeners.missedAll();
    }

    /** One shard's subscription connection and thread; guarded by the outer lock. */
    private final class Shard extends JedisShardedPubSub {
        final HostAndPort node;
        final Connection connection;
        final Map<String, CompletableFuture<Void>> confirmations = new ConcurrentHashMap<>();
        final Thread thread;
        volatile boolean ended;
        private boolean started;

        Shard(HostAndPort node, Connection connection, String firstChannel) {
            this.node = node;
            this.connection = connection;
            confirmations.put(firstChannel, new CompletableFuture<>());
            this.thread = threadFactory.newThread(() -> run(firstChannel));
            thread.setDaemon(true);
            thread.start();
        }

        CompletableFuture<Void> confirmation(String channel) {
            return confirmations.computeIfAbsent(channel, c -> new CompletableFuture<>());
        }

        void add(String channel) {
            if (confirmations.putIfAbsent(channel, new CompletableFuture<>()) == null && started) {
                ssubscribe(channel);
            }
        }

        /** Called with the outer lock held. */
        void remove(String channel) {
            confirmations.remove(channel);
            if (confirmations.isEmpty()) {
                // The reading loop ends once Redis counts no channel, so a channel added after
                // this point would never be confirmed here: later subscribers start a new shard.
                ended = true;
                shards.remove(node, this);
            }
            if (started) {
                try {
                    sunsubscribe(channel);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "sunsubscribe failed on " + node, e);
                }
            }
        }

        void end() {
            ended = true;
            try {
                if (started) {
                    sunsubscribe();
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "ending the sharded subscription on " + node + " failed", e);
            }
            connection.close();
        }

        private void run(String firstChannel) {
            // The channels to route again; the shard thread's alone, as are its outages.
            List<String> pending = new ArrayList<>();
            OutageTracker outages = new OutageTracker(subject(), timeout, () -> pending.forEach(listeners::missed));
            try {
                proceed(connection, firstChannel);
            } catch (RuntimeException e) {
                // Never hand a connection that may still be subscribed back to the command pool.
                connection.setBroken();
                if (!ended && !closed) {
                    outages.failed(true, e);
                }
            } finally {
                lock.lock();
                try {
                    ended = true;
                    shards.remove(node, this);
                    routes.forEach((channel, shard) -> {
                        if (shard == this) {
                            pending.add(channel);
                        }
                    });
                    pending.forEach(routes::remove);
                } finally {
                    lock.unlock();
                }
                connection.close();
                if (!closed) {
                    reroute(pending, outages);
                }
            }
        }

        private String subject() {
            return "the sharded wake-up connection to " + node;
        }

        @Override
        public void onSSubscribe(String channel, int subscribedChannels) {
            if (!started) {
                lock.lock();
                try {
                    started = true;
                    if (ended) {
                        sunsubscribe(); // every channel went away before the connection was up
                        return;
                    }
                    List<String> late = new ArrayList<>();
                    for (String c : confirmations.keySet()) {
                        if (!c.equals(channel)) {
                            late.add(c);
                        }
                    }
                    for (String c : late) {
                        // One command per channel: channels of one node are in different slots, and
                        // SSUBSCRIBE with several channels of different slots fails with CROSSSLOT.
                        ssubscribe(c);
                    }
                } finally {
                    lock.unlock();
                }
            }
            CompletableFuture<Void> f = confirmations.get(channel);
            if (f != null) {
                f.complete(null);
            }
        }

        @Override
        public void onSMessage(String channel, String message) {
            WakeUps.deliver(listeners, channel, message);
        }
    }

    /**
     * Subscribes orphaned channels ({@code pending}, emptied as they succeed) again, backing off
     * while that fails, and tells their waiters to look again; {@code outages} alerts the channels
     * still pending when the shard stays away: they check now and get a typed failure, rather than
     * sleeping until their retry hint (a failover within that time is ridden out).
     */
    private void reroute(List<String> pending, OutageTracker outages) {
        while (!pending.isEmpty() && !closed) {
            List<String> failed = new ArrayList<>();
            Exception cause = null;
            for (String channel : pending) {
                if (!listeners.contains(channel)) {
                    continue;
                }
                try {
                    route(channel).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    listeners.missed(channel);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (Exception e) {
                    LOG.log(System.Logger.Level.DEBUG, "resubscribing " + channel + " failed", e);
                    failed.add(channel);
                    cause = e;
                }
            }
            pending.clear();
            pending.addAll(failed);
            if (cause == null) {
                break;
            }
            long backoff = outages.failed(false, cause);
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException e) {
                return;
            }
        }
        if (pending.isEmpty()) {
            outages.over();
        }
    }
}
