package io.lockkit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * The raw floor: the least a Redis lock can cost. Acquire is {@code SET key owner NX PX lease} in
 * a script, release a compare-and-delete that publishes on the lock's channel; both are EVALSHA
 * through Jedis. No reentrancy, no fencing, no watchdog (the lease is a fixed 30 s).
 *
 * <p>Contended path, retry-on-message: a waiter whose attempt fails makes sure this client is
 * subscribed to the lock's channel (one pub/sub connection and thread per client, subscriptions
 * kept for the client's life), then parks until a release message arrives or the holder's lease
 * runs out, and tries again. A message wakes one waiter of this client (a binary permit, so a
 * message that finds nobody parked is not lost and permits do not pile up). Command connections
 * come from a pool sized like lockkit's (16 + 1 for pub/sub).
 */
final class FloorClient implements BenchClient {

    static final Duration LEASE = Duration.ofSeconds(30);
    private static final Script ACQUIRE = new Script("floor/acquire.lua");
    private static final Script RELEASE = new Script("floor/release.lua");

    private final RedisClient jedis;
    private final String name;
    private final String clientId = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    private final String lease = Long.toString(LEASE.toMillis());
    private final Map<String, Semaphore> permits = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Void>> confirmations = new ConcurrentHashMap<>();
    private final ReentrantLock pubSubLock = new ReentrantLock();
    private final PubSub pubSub = new PubSub();
    private final CompletableFuture<Void> connected = new CompletableFuture<>();
    private Thread pubSubThread;
    private volatile boolean closed;

    FloorClient(String uri, String connectionName) {
        this.name = connectionName;
        URI u = URI.create(uri);
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(17);
        pool.setMaxIdle(17);
        // A long wait for a pooled connection: with 32 threads on one CPU the pool is unfair enough to
        // starve a thread for seconds, and the floor must measure costs, not fail.
        pool.setMaxWait(Duration.ofSeconds(30));
        pool.setJmxEnabled(false);
        this.jedis = RedisClient.builder()
                .hostAndPort(new HostAndPort(u.getHost(), u.getPort()))
                .clientConfig(DefaultJedisClientConfig.builder()
                        .clientName(connectionName)
                        .socketTimeoutMillis(2000)
                        .connectionTimeoutMillis(2000)
                        .build())
                .poolConfig(pool)
                .build();
    }

    @Override
    public BenchLock lock(String lockName) {
        return new FloorLock(lockName);
    }

    @Override
    public String connectionName() {
        return name;
    }

    @Override
    public void close() {
        closed = true;
        pubSubLock.lock();
        try {
            if (pubSub.isSubscribed()) {
                pubSub.unsubscribe();
            }
        } finally {
            pubSubLock.unlock();
        }
        if (pubSubThread != null) {
            try {
                pubSubThread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        jedis.close();
    }

    private final class FloorLock implements BenchLock {
        private final String key;
        private final String channel;

        FloorLock(String lockName) {
            this.key = "floor:{" + lockName + "}";
            this.channel = key + ":c";
        }

        @Override
        public void lock() {
            List<String> keys = List.of(key);
            List<String> args = List.of(owner(), lease);
            long ttl = (Long) ACQUIRE.call(jedis, keys, args);
            if (ttl == -1) {
                return;
            }
            Semaphore permit = permits.get(channel);
            CompletableFuture<Void> confirmed = confirmations.get(channel);
            if (permit == null || confirmed == null || !confirmed.isDone()) {
                // A release may have slipped by before the subscription was in place: try once more.
                permit = subscribe(channel);
                ttl = (Long) ACQUIRE.call(jedis, keys, args);
                if (ttl == -1) {
                    return;
                }
            }
            while (true) {
                try {
                    permit.tryAcquire(Math.max(1, ttl), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // like Lock.lock(): keep waiting, keep the flag
                }
                ttl = (Long) ACQUIRE.call(jedis, keys, args);
                if (ttl == -1) {
                    return;
                }
            }
        }

        @Override
        public void unlock() {
            long released = (Long) RELEASE.call(jedis, List.of(key), List.of(owner(), channel));
            if (released != 1) {
                throw new IllegalMonitorStateException("the floor lock " + key + " was not held by " + owner());
            }
        }

        private String owner() {
            return clientId + ":" + Thread.currentThread().getId();
        }
    }

    /** Subscribes this client to {@code channel} once, and returns the permit its messages release. */
    private Semaphore subscribe(String channel) {
        CompletableFuture<Void> confirmed;
        pubSubLock.lock();
        try {
            permits.computeIfAbsent(channel, c -> new Semaphore(0));
            confirmed = confirmations.get(channel);
            if (confirmed == null) {
                confirmed = new CompletableFuture<>();
                confirmations.put(channel, confirmed);
                if (pubSubThread == null) {
                    String first = channel;
                    pubSubThread = new Thread(
                            () -> {
                                try {
                                    jedis.subscribe(pubSub, first);
                                } catch (RuntimeException e) {
                                    if (!closed) {
                                        throw e;
                                    }
                                }
                            },
                            "floor-pubsub-" + name);
                    pubSubThread.setDaemon(true);
                    pubSubThread.start();
                } else {
                    awaitConnected(channel);
                    pubSub.subscribe(channel);
                }
            }
        } finally {
            pubSubLock.unlock();
        }
        try {
            confirmed.get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the floor's subscription to " + channel + " was not confirmed", e);
        }
        return permits.get(channel);
    }

    /** Waits (holding the pub/sub lock) until the pub/sub thread's first subscription is confirmed. */
    private void awaitConnected(String channel) {
        try {
            connected.get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the floor's pub/sub connection did not come up for " + channel, e);
        }
    }

    private final class PubSub extends JedisPubSub {
        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            connected.complete(null);
            CompletableFuture<Void> f = confirmations.get(channel);
            if (f != null) {
                f.complete(null);
            }
        }

        @Override
        public void onMessage(String channel, String message) {
            Semaphore s = permits.get(channel);
            if (s != null && s.availablePermits() == 0) {
                s.release();
            }
        }
    }

    /** A Lua resource called by SHA, falling back to EVAL when the server does not know it yet. */
    static final class Script {
        final String text;
        final String sha;

        Script(String resource) {
            try (InputStream in = FloorClient.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing script resource " + resource);
                }
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                sha = HexFormat.of()
                        .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        Object call(RedisClient jedis, List<String> keys, List<String> args) {
            try {
                return jedis.evalsha(sha, keys, args);
            } catch (JedisNoScriptException e) {
                return jedis.eval(text, keys, args);
            }
        }
    }
}
