package io.lockkit.jedis;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockOptions;
import io.lockkit.jedis.internal.CommandBatcher;
import io.lockkit.jedis.internal.Interrupts;
import io.lockkit.jedis.internal.Keys;
import io.lockkit.jedis.internal.Scripts;
import io.lockkit.jedis.internal.ShardedWakeUps;
import io.lockkit.jedis.internal.WakeUpHub;
import io.lockkit.jedis.internal.WakeUps;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.util.JedisURIHelper;

import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The Redis lock backend, over one Jedis {@link UnifiedJedis} client: standalone
 * ({@code RedisClient}), Sentinel ({@code RedisSentinelClient}) or Cluster
 * ({@code RedisClusterClient}) through one code path. Thread-safe.
 *
 * <p>Per lock name it keeps, under one hash tag: a hash of owner → hold count with the lease as
 * its TTL and the current fencing token, which stays with the last token for the fence retention
 * once the lock is released; and a wait queue (sorted set plus deadlines). Every operation is one
 * Lua script call: an uncontended lock and unlock cost two commands, which run seven Redis
 * commands between them. Releasing a lock that has waiters hands it to the first live one inside the
 * release script. A waiter of the releasing process gets it outright (held, with its own lease;
 * the release's reply carries its token, which the releasing thread passes to it), so a hand-off
 * within a process is one command. Any other waiter is told by a message on the lock's channel
 * and claims the lock with one more call (a waiter that is gone then costs only the claim
 * timeout), so a contended acquisition costs at most three commands, however many wait.
 *
 * <p>Threads and connections: one pub/sub thread and connection, started by the first acquisition
 * that may wait (a Redis 7 Cluster: one per shard, on the first wait there); the
 * factory adds two scheduler threads for renewals and lease deadlines. On a single node
 * ({@code RedisClient}) the lock and unlock calls of all threads share two pooled connections: calls
 * that arrive while both are busy go out together in one pipelined write, in arrival order, so 32
 * threads locking at once cost Redis a few batches, not 32 connections' worth of reads and writes;
 * the next batch goes out before the callers of the last one are woken.
 * Renewals and, on Sentinel and Cluster, every call borrow pooled connections (at most
 * {@link Builder#maxConnections(int)}) for the duration of a call. A parked waiter holds none.
 */
public final class JedisLockProvider implements LockProvider {

    /** The namespace of every key unless configured: {@code lockkit}. */
    public static final String DEFAULT_KEY_PREFIX = "lockkit";
    /** How long a command may take, including waiting for a pooled connection: 2 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** How long a waiter has to claim a lock handed to it before it passes on: 2 s. */
    public static final Duration DEFAULT_CLAIM_TIMEOUT = Duration.ofSeconds(2);
    /** How long a released lock's hash keeps its last fencing token: 60 s. */
    public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofSeconds(60);

    /** How many hand-overs in a row may stay within one process ahead of older waiters elsewhere: 8. */
    public static final int DEFAULT_LOCAL_HAND_OFFS = 8;

    /** Holds renewed by one script call: bounds how long one call keeps Redis busy (about 0.1 ms). */
    static final int RENEW_BATCH = 100;

    /**
     * Connections that lock and unlock calls share on a single node, pipelining the calls that
     * arrive together: two keep Redis and the client busy at once (one batch is written while the
     * other's replies are read), more only spread the same calls thinner.
     */
    static final int BATCH_CONNECTIONS = 2;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final UnifiedJedis jedis;
    /** Lock and unlock calls of all threads over at most two connections, on a single node; else null. */
    private final @Nullable CommandBatcher batcher;
    /** Whether the client talks to a cluster; learned from a CROSSSLOT answer if the type did not tell. */
    private volatile boolean cluster;
    private final boolean ownsClient;
    private final Keys keys;
    private final String claimMillis;
    private final String fenceRetentionMillis;
    private final String slackMillis;
    private final String localHandOffs;
    private final int replicas;
    private final Duration replicaTimeout;
    private final String controlChannel;
    private final Duration timeout;
    private final java.util.concurrent.locks.ReentrantLock setup = new java.util.concurrent.locks.ReentrantLock();
    private volatile @Nullable WakeUps wakeUps;
    private volatile @Nullable String publishCommand;
    /** Waits this provider queued in Redis and has not seen end, with the id of the latest such wait. */
    private final Map<QueueEntry, Long> queued = new java.util.concurrent.ConcurrentHashMap<>();
    private final String description;
    private final Duration watchdogLease;
    private final ThreadFactory threadFactory;
    private volatile boolean closed;

    private JedisLockProvider(Builder b, UnifiedJedis jedis, boolean ownsClient) {
        this.jedis = jedis;
        this.batcher = jedis instanceof RedisClient single
                ? new CommandBatcher(single.getPool(), Math.min(BATCH_CONNECTIONS, b.maxConnections), b.timeout)
                : null;
        this.cluster = isCluster(jedis);
        this.ownsClient = ownsClient;
        this.keys = new Keys(b.keyPrefix);
        this.claimMillis = Long.toString(b.claimTimeout.toMillis());
        this.fenceRetentionMillis = Long.toString(b.fenceRetention.toMillis());
        this.slackMillis = claimMillis;
        this.localHandOffs = Integer.toString(b.localHandOffs);
        this.replicas = b.replicas;
        this.replicaTimeout = b.replicaTimeout;
        this.watchdogLease = b.watchdogLease;
        String id = Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36);
        AtomicInteger n = new AtomicInteger();
        this.threadFactory = b.threadFactory != null ? b.threadFactory : r -> new Thread(r, "lockkit-redis-" + id + "-" + n.incrementAndGet());
        this.controlChannel = b.keyPrefix + ":ctl";
        this.timeout = b.timeout;
        this.description = "JedisLockProvider[" + b.target + ", prefix " + b.keyPrefix + "]";
    }

    /** A provider for the Redis at {@code uri} ({@code redis://} or {@code rediss://}, with user, password and database). */
    public static JedisLockProvider create(String uri) {
        return builder().uri(uri).build();
    }

    /** A provider over a client the application owns (it is not closed with the provider). */
    public static JedisLockProvider create(UnifiedJedis client) {
        return builder().client(client).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    // ---- LockProvider ----

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        String name = request.name();
        String base = keys.base(name);
        if (request.waiting() && wakeUps == null && !cluster && !closed) {
            // The first lock that may wait starts the pub/sub thread and connection (without
            // waiting for them): from then on the provider's threads are fixed, and the first
            // contended wait does not pay for the connection. Cluster shards start on demand.
            wakeUps(name).start();
        }
        QueueEntry entry = new QueueEntry(name, request.owner());
        // The script removes the owner's old queue entry only when told it may have one: the
        // uncontended path then runs no queue command at all.
        List<String> args = List.of(request.owner(), Long.toString(request.lease().toMillis()),
                Long.toString(request.maxWait().toMillis()), slackMillis, queued.containsKey(entry) ? "1" : "0",
                Long.toString(request.waitId()));
        long reply;
        try {
            reply = (Long) run(name, () -> replicas > 0
                    ? acquireAcknowledged(name, base, args)
                    : script(Scripts.ACQUIRE, Keys.all(base), args));
        } catch (RuntimeException e) {
            if (request.waiting()) {
                queued.put(entry, request.waitId()); // the call may have queued the owner before its reply was lost
            }
            throw e;
        }
        if (reply > 0) {
            if (!queued.isEmpty()) {
                queued.remove(entry);
            }
            return Acquisition.acquired(reply);
        }
        if (request.waiting()) {
            queued.put(entry, request.waitId());
        }
        return Acquisition.busy(Duration.ofMillis(-1 - reply));
    }

    private Object acquireAcknowledged(String name, String base, List<String> args) {
        Object reply;
        long acknowledged;
        try (AbstractPipeline p = jedis.pipelined()) {
            Response<Object> acquired = Scripts.ACQUIRE.queue(p, Keys.all(base), args);
            Response<Long> waited = p.waitReplicas(base, replicas, replicaTimeout.toMillis());
            p.sync();
            try {
                reply = acquired.get();
            } catch (JedisNoScriptException | JedisRedirectionException e) {
                // Unknown script, or a cluster slot that moved (pipelines do not follow MOVED; a
                // single call does, and refreshes the client's slot map): acquire and WAIT one by one.
                reply = Scripts.ACQUIRE.call(jedis, Keys.all(base), args);
                acknowledged = undoIfFailing(name, args.get(0), reply, () -> jedis.waitReplicas(base, replicas, replicaTimeout.toMillis()));
                return checkAcknowledged(name, args.get(0), reply, acknowledged);
            }
            Object acquiredReply = reply;
            acknowledged = undoIfFailing(name, args.get(0), acquiredReply, waited);
        }
        return checkAcknowledged(name, args.get(0), reply, acknowledged);
    }

    /** Runs the WAIT; if it fails after the script acquired, the acquisition is undone before the failure surfaces. */
    private long undoIfFailing(String name, String owner, Object reply, Supplier<Long> waitCall) {
        try {
            return waitCall.get();
        } catch (RuntimeException e) {
            if ((Long) reply > 0) {
                try {
                    release(name, owner);
                } catch (RuntimeException undo) {
                    e.addSuppressed(undo);
                }
            }
            throw e;
        }
    }

    private Object checkAcknowledged(String name, String owner, Object reply, long acknowledged) {
        if ((Long) reply > 0 && acknowledged < replicas) {
            release(name, owner);
            throw new ReplicaAcknowledgementException(name, replicas, acknowledged, replicaTimeout);
        }
        return reply;
    }

    @Override
    public Release release(String name, String owner) {
        return runRelease(name, owner, "release", 0);
    }

    @Override
    public void abandon(String name, String owner, long waitId) {
        runRelease(name, owner, "abandon", waitId);
        queued.remove(new QueueEntry(name, owner));
    }

    /**
     * Classes that closing the client loads for the first time (found with -verbose:class): loaded
     * with this class, because a server that stops an application's class loader before destroying
     * its beans (Payara Micro on redeploy) refuses to load them at close, and the pool's connections
     * would stay open.
     */
    @SuppressWarnings("UnusedVariable") // loading the classes is the point; nothing reads the list
    private static final List<Class<?>> CLOSE_PATH = preload("redis.clients.jedis.util.IOUtils",
            "org.apache.commons.pool2.DestroyMode");

    private static List<Class<?>> preload(String... names) {
        List<Class<?>> loaded = new java.util.ArrayList<>();
        for (String name : names) {
            try {
                loaded.add(Class.forName(name, true, JedisLockProvider.class.getClassLoader()));
            } catch (ClassNotFoundException | LinkageError e) {
                // another Jedis or commons-pool version: nothing to preload under that name
            }
        }
        return List.copyOf(loaded);
    }

    private record QueueEntry(String name, String owner) {
        // Written out: a record's generated equals/hashCode goes through java.lang.runtime.ObjectMethods,
        // whose cache on JDK 17 keeps the class, and with it a Jakarta EE application's class
        // loader, alive after undeploy.
        @Override
        public boolean equals(Object o) {
            return o instanceof QueueEntry other && name.equals(other.name) && owner.equals(other.owner);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(name, owner);
        }
    }

    @Override
    public boolean forceRelease(String name) {
        return runRelease(name, "", "force", 0).outcome() != Release.Outcome.NOT_HELD;
    }

    private Release runRelease(String name, String owner, String mode, long waitId) {
        String base = keys.base(name);
        // One nonce per call, the same for run()'s retry: the script records it when it lowers a
        // reentrant hold count, so a retry whose first attempt ran (reply lost) does not lower the
        // count again and free the lock under an owner that still holds it once.
        String nonce = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        Object reply = run(name, () -> script(Scripts.RELEASE, Keys.all(base),
                // Only a release's caller hears the grantee from the reply and wakes a waiter of its
                // own client; an abandon's caller does not, so its hand-over is always published.
                List.of(owner, mode, claimMillis, fenceRetentionMillis, Keys.channel(base), publishCommand(),
                        mode.equals("release") ? clientPrefix(owner) : "", localHandOffs, nonce, Long.toString(waitId))));
        if (reply instanceof List<?> grant) {
            // {grantee, token, wait id}: granted outright to a waiter of this client, whose queue
            // entry the script removed. Only that wait's record goes: the grantee may have taken
            // the lock through an attempt of its own meanwhile and queued again in a new wait.
            String grantee = text(grant.get(0));
            long grantWaitId = (Long) grant.get(2);
            queued.remove(new QueueEntry(name, grantee), grantWaitId);
            return Release.grantedTo(grantee, (Long) grant.get(1), grantWaitId);
        }
        if (!(reply instanceof Long outcome)) {
            // A bulk reply: the grantee's owner id, the lock was handed over.
            return new Release(Release.Outcome.RELEASED, text(reply));
        }
        if (outcome < 0) {
            return Release.NOT_HELD;
        }
        return outcome == 0 ? Release.STILL_HELD : Release.RELEASED;
    }

    private static String text(Object reply) {
        return reply instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : String.valueOf(reply);
    }

    /** The client part of an owner id ({@code <client id>:<owner>}), which the release script may prefer. */
    private static String clientPrefix(String owner) {
        int colon = owner.indexOf(':');
        return colon < 0 ? "" : owner.substring(0, colon + 1);
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        if (renewals.isEmpty()) {
            return List.of();
        }
        List<List<Renewal>> batches = renewBatches(renewals);
        return run(renewals.get(0).name(), () -> {
            List<Renewal> gone = new ArrayList<>();
            List<List<Renewal>> pending = batches;
            // Round 1 pipelines every batch: one round trip per node. On one node the first batch
            // goes as EVAL, so a node that lost its script cache learns it in that same round trip.
            // A cluster's node may still answer NOSCRIPT (its batches go as EVALSHA), or a
            // redirection (a cluster pipeline does not follow MOVED; a single call does and
            // refreshes the slot map): one single call per round teaches or redirects, the rest
            // go in one more pipeline. Bounded by a few rounds; what is left is sent one by one.
            for (int round = 0; round < 4 && !pending.isEmpty(); round++) {
                List<List<Renewal>> retry = new ArrayList<>();
                boolean taught = false;
                List<Response<Object>> replies = new ArrayList<>(pending.size());
                try (AbstractPipeline p = jedis.pipelined()) {
                    for (int i = 0; i < pending.size(); i++) {
                        List<Renewal> batch = pending.get(i);
                        replies.add(i == 0 && !cluster
                                ? Scripts.RENEW.queueWithText(p, renewKeys(batch), renewArgs(batch))
                                : Scripts.RENEW.queue(p, renewKeys(batch), renewArgs(batch)));
                    }
                    p.sync();
                }
                for (int i = 0; i < pending.size(); i++) {
                    List<Renewal> batch = pending.get(i);
                    Object reply;
                    try {
                        reply = replies.get(i).get();
                    } catch (JedisNoScriptException | JedisRedirectionException e) {
                        if (!taught || round == 3) {
                            taught = true;
                            reply = Scripts.RENEW.call(jedis, renewKeys(batch), renewArgs(batch));
                        } else {
                            retry.add(batch);
                            continue;
                        }
                    } catch (JedisDataException e) {
                        if (e.getMessage() == null || !e.getMessage().startsWith("CROSSSLOT")) {
                            throw e;
                        }
                        // A cluster behind a client type this provider did not recognize: renew
                        // this batch hold by hold, and batch per slot from now on.
                        cluster = true;
                        reply = renewOneByOne(batch);
                    }
                    List<?> renewed = (List<?>) reply;
                    for (int j = 0; j < batch.size(); j++) {
                        if (!Long.valueOf(1).equals(renewed.get(j))) {
                            gone.add(batch.get(j));
                        }
                    }
                }
                pending = retry;
            }
            return gone;
        });
    }

    /** One script call: pipelined with other threads' calls on a single node, routed by Jedis elsewhere. */
    private Object script(Scripts script, List<String> keys, List<String> args) {
        return batcher != null ? script.call(batcher, keys, args) : script.call(jedis, keys, args);
    }

    @SuppressWarnings("deprecation") // JedisCluster: still a cluster client applications may pass
    private static boolean isCluster(UnifiedJedis jedis) {
        return jedis instanceof RedisClusterClient || jedis instanceof redis.clients.jedis.JedisCluster;
    }

    private List<Object> renewOneByOne(List<Renewal> batch) {
        List<Object> replies = new ArrayList<>(batch.size());
        for (Renewal r : batch) {
            List<Renewal> one = List.of(r);
            replies.add(((List<?>) Scripts.RENEW.call(jedis, renewKeys(one), renewArgs(one))).get(0));
        }
        return replies;
    }

    /**
     * Renewals in script calls of at most {@value #RENEW_BATCH} holds each; on a cluster each call
     * holds one slot's locks only, since one script's keys must share a slot.
     */
    private List<List<Renewal>> renewBatches(List<Renewal> renewals) {
        List<List<Renewal>> batches = new ArrayList<>();
        if (!cluster) {
            for (int i = 0; i < renewals.size(); i += RENEW_BATCH) {
                batches.add(renewals.subList(i, Math.min(renewals.size(), i + RENEW_BATCH)));
            }
            return batches;
        }
        Map<Integer, List<Renewal>> open = new HashMap<>();
        for (Renewal r : renewals) {
            int slot = JedisClusterCRC16.getSlot(keys.base(r.name()));
            List<Renewal> batch = open.computeIfAbsent(slot, s -> new ArrayList<>());
            batch.add(r);
            if (batch.size() == RENEW_BATCH) {
                batches.add(batch);
                open.remove(slot);
            }
        }
        batches.addAll(open.values());
        return batches;
    }

    private List<String> renewKeys(List<Renewal> batch) {
        List<String> lockKeys = new ArrayList<>(batch.size());
        for (Renewal r : batch) {
            lockKeys.add(Keys.lock(keys.base(r.name())));
        }
        return lockKeys;
    }

    private static List<String> renewArgs(List<Renewal> batch) {
        List<String> args = new ArrayList<>(batch.size() * 2);
        for (Renewal r : batch) {
            args.add(r.owner());
            args.add(Long.toString(r.lease().toMillis()));
        }
        return args;
    }

    @Override
    public Optional<LockState> inspect(String name) {
        String base = keys.base(name);
        List<?> reply = (List<?>) run(name, () -> script(Scripts.INSPECT, List.of(Keys.lock(base)), List.of()));
        if (reply.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Integer> owners = new HashMap<>();
        for (int i = 1; i + 1 < reply.size(); i += 2) {
            String field = String.valueOf(reply.get(i));
            if (!field.startsWith("~")) {
                owners.put(field, Integer.parseInt(String.valueOf(reply.get(i + 1))));
            }
        }
        if (owners.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new LockState(Map.copyOf(owners), Duration.ofMillis(Math.max(0, (Long) reply.get(0)))));
    }

    @Override
    public Subscription subscribe(String name, WakeUpListener listener) {
        return run(name, () -> wakeUps(name).subscribe(Keys.channel(keys.base(name)), name, listener));
    }

    /** Sharded pub/sub on a Redis 7+ Cluster (wake-ups stay on the lock's shard), classic elsewhere. */
    private String publishCommand() {
        String p = publishCommand;
        if (p == null) {
            p = shardedPubSub() ? "SPUBLISH" : "PUBLISH";
            publishCommand = p;
        }
        return p;
    }

    private boolean shardedPubSub() {
        if (!(jedis instanceof RedisClusterClient cluster)) {
            return false;
        }
        try (Connection c = cluster.getConnectionFromSlot(0)) {
            String info = c.executeCommand(new CommandObject<>(new CommandArguments(Protocol.Command.INFO).add("server"), BuilderFactory.STRING));
            for (String line : info.split("\r?\n", -1)) {
                if (line.startsWith("redis_version:")) {
                    return Integer.parseInt(line.substring("redis_version:".length()).split("\\.", -1)[0]) >= 7;
                }
            }
            return false;
        }
    }

    private WakeUps wakeUps(String lockName) {
        WakeUps w = wakeUps;
        if (w == null) {
            setup.lock(); // a lock, not synchronized: the version check is I/O and callers may be virtual threads
            try {
                w = wakeUps;
                if (w == null) {
                    if (closed) {
                        throw new LockException(lockName, "the Redis lock provider is closed");
                    }
                    w = "SPUBLISH".equals(publishCommand())
                            ? new ShardedWakeUps((RedisClusterClient) jedis, threadFactory, timeout)
                            : new WakeUpHub(jedis, controlChannel, threadFactory, timeout);
                    wakeUps = w;
                }
            } finally {
                setup.unlock();
            }
        }
        return w;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        // Leave no queue entry behind for a hand-over to a waiter that is gone (waiters still
        // parked are woken below and fail with "closed").
        for (Map.Entry<QueueEntry, Long> e : List.copyOf(queued.entrySet())) {
            try {
                abandon(e.getKey().name(), e.getKey().owner(), e.getValue());
            } catch (RuntimeException ex) {
                System.getLogger(JedisLockProvider.class.getName()).log(System.Logger.Level.DEBUG,
                        "leaving the wait queue of lock '" + e.getKey().name() + "' on close failed; the entry lapses by itself", ex);
            }
        }
        WakeUps w;
        setup.lock(); // so that no wake-up hub is created after this
        try {
            closed = true;
            w = wakeUps;
        } finally {
            setup.unlock();
        }
        if (w != null) {
            w.close();
        }
        if (ownsClient) {
            jedis.close();
        }
    }

    /** Number of lock channels this provider is subscribed to (for tests and metrics). */
    public int subscribedChannels() {
        WakeUps w = wakeUps;
        return w == null ? 0 : w.channels();
    }

    /** Whether wake-ups use sharded pub/sub (a Redis 7+ Cluster). */
    public boolean usesShardedPubSub() {
        return "SPUBLISH".equals(publishCommand());
    }

    /** A factory over this provider with the builder's watchdog lease and thread factory. */
    public DistributedLockFactory newFactory() {
        return DistributedLockFactory.builder(this)
                .defaultOptions(LockOptions.builder().watchdogLease(watchdogLease).build())
                .threadFactory(threadFactory)
                .build();
    }

    @Override
    public String toString() {
        return description;
    }

    private <T> T run(String name, Supplier<T> call) {
        if (closed) {
            throw new LockException(name, "the Redis lock provider is closed");
        }
        try {
            try {
                return Interrupts.setAside(call);
            } catch (JedisConnectionException first) {
                // Pooled connections go stale when Redis restarts or fails over; one retry on a
                // fresh connection hides that. A retry whose first attempt did run is harmless:
                // scripts check the owner, the core evens out a doubled hold count on release, and
                // a release carries a nonce so that it never lowers a count twice.
                if (closed) {
                    throw first;
                }
                return Interrupts.setAside(call);
            }
        } catch (JedisConnectionException e) {
            throw new BackendUnavailableException(name, "Redis could not be reached: " + e.getMessage(), e);
        } catch (JedisDataException e) {
            throw new BackendUnavailableException(name, "Redis refused the lock command: " + e.getMessage(), e);
        } catch (JedisException e) {
            throw new BackendUnavailableException(name, "Redis failed: " + e.getMessage(), e);
        } catch (IllegalStateException e) {
            // Jedis reports an exhausted or closed pool this way.
            throw new BackendUnavailableException(name, "no Redis connection: " + e.getMessage(), e);
        }
    }

    /** Configures a {@link JedisLockProvider}. Setters validate their argument. Not thread-safe. */
    public static final class Builder {
        private @Nullable URI uri;
        private @Nullable UnifiedJedis client;
        private String target = "redis://localhost:6379";
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private String clientName = "lockkit";
        private Duration timeout = DEFAULT_TIMEOUT;
        private Duration connectTimeout = DEFAULT_TIMEOUT;
        private Duration claimTimeout = DEFAULT_CLAIM_TIMEOUT;
        private Duration fenceRetention = DEFAULT_FENCE_RETENTION;
        private Duration watchdogLease = LockOptions.DEFAULT_WATCHDOG_LEASE;
        private int replicas;
        private Duration replicaTimeout = Duration.ofMillis(100);
        private int maxConnections = 16;
        private int localHandOffs = DEFAULT_LOCAL_HAND_OFFS;
        private @Nullable ThreadFactory threadFactory;
        private @Nullable SslOptions sslOptions;

        private Builder() {
        }

        /** The Redis to use: {@code redis://[[user]:password@]host[:port][/database]}, or {@code rediss://} for TLS. */
        public Builder uri(String uri) {
            if (uri == null || uri.isBlank()) {
                throw new IllegalArgumentException("uri must not be null or blank");
            }
            URI parsed;
            try {
                parsed = URI.create(uri);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("uri is not a valid URI: " + e.getMessage(), e);
            }
            if (!JedisURIHelper.isValid(parsed) || parsed.getHost() == null) {
                throw new IllegalArgumentException("uri must look like redis://host:port or rediss://host:port, was " + redact(parsed));
            }
            if (parsed.getPort() != -1 && (parsed.getPort() < 1 || parsed.getPort() > 65535)) {
                throw new IllegalArgumentException("uri has port " + parsed.getPort() + ", not within 1..65535: " + redact(parsed));
            }
            String path = parsed.getPath();
            if (path != null && !path.isEmpty() && !path.equals("/") && !path.matches("/\\d{1,9}")) {
                throw new IllegalArgumentException("uri must name the database as /<number>, was '" + path + "' in " + redact(parsed));
            }
            this.uri = parsed;
            this.client = null;
            this.target = redact(parsed);
            return this;
        }

        /** A client the application already has and keeps owning (standalone, Sentinel or Cluster). */
        public Builder client(UnifiedJedis client) {
            if (client == null) {
                throw new IllegalArgumentException("client must not be null");
            }
            this.client = client;
            this.uri = null;
            this.target = client.getClass().getSimpleName();
            return this;
        }

        /** The namespace of every key, so applications sharing a Redis keep apart; no braces or spaces. */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || keyPrefix.isEmpty() || keyPrefix.length() > 128 || !keyPrefix.matches("[\\x21-\\x7e&&[^{}]]+")) {
                throw new IllegalArgumentException("keyPrefix must be 1 to 128 printable ASCII characters without braces or spaces, was '" + keyPrefix + "'");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** The name the provider's connections carry in {@code CLIENT LIST}. */
        public Builder clientName(String clientName) {
            if (clientName == null || clientName.isEmpty() || !clientName.matches("[\\x21-\\x7e]+")) {
                throw new IllegalArgumentException("clientName must be printable ASCII without spaces, was '" + clientName + "'");
            }
            this.clientName = clientName;
            return this;
        }

        /** How long a command may take, including the wait for a pooled connection. */
        public Builder timeout(Duration timeout) {
            this.timeout = positive(timeout, "timeout");
            return this;
        }

        /** How long connecting may take. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive(connectTimeout, "connectTimeout");
            return this;
        }

        /** How long a waiter has to claim a lock handed to it; a dead waiter costs at most this. */
        public Builder claimTimeout(Duration claimTimeout) {
            this.claimTimeout = positive(claimTimeout, "claimTimeout");
            return this;
        }

        /**
         * How long a released lock's hash keeps its last fencing token (memory per recently used
         * name). Past it, and when a lease lapses without a release, the server clock alone keeps
         * tokens increasing.
         */
        public Builder fenceRetention(Duration fenceRetention) {
            this.fenceRetention = positive(fenceRetention, "fenceRetention");
            return this;
        }

        /** The watchdog lease of factories made by {@link JedisLockProvider#newFactory()}. */
        public Builder watchdogLease(Duration watchdogLease) {
            this.watchdogLease = LockOptions.builder().watchdogLease(watchdogLease).build().watchdogLease().orElseThrow();
            return this;
        }

        /**
         * After each acquisition, wait up to {@code timeout} for {@code replicas} replicas to
         * acknowledge it ({@code WAIT}); with fewer, the acquisition is undone and fails with
         * {@link ReplicaAcknowledgementException}. Zero replicas turns this off.
         */
        public Builder replicaAcknowledgement(int replicas, Duration timeout) {
            if (replicas < 0) {
                throw new IllegalArgumentException("replicas must not be negative, was " + replicas);
            }
            this.replicas = replicas;
            this.replicaTimeout = positive(timeout, "timeout");
            return this;
        }

        /**
         * How many hand-overs in a row may go to a waiter of the releasing process ahead of older
         * waiters of other processes: such a hand-over needs no pub/sub hop, so it is faster, at
         * the price of strict arrival order. Zero gives strict FIFO across processes.
         */
        public Builder localHandOffs(int localHandOffs) {
            if (localHandOffs < 0) {
                throw new IllegalArgumentException("localHandOffs must not be negative, was " + localHandOffs);
            }
            this.localHandOffs = localHandOffs;
            return this;
        }

        /** The most pooled connections used for commands (the pub/sub connection comes on top). */
        public Builder maxConnections(int maxConnections) {
            if (maxConnections < 1) {
                throw new IllegalArgumentException("maxConnections must be at least 1, was " + maxConnections);
            }
            this.maxConnections = maxConnections;
            return this;
        }

        /** Trust and key stores for {@code rediss://} (default: the JVM's trust store). */
        public Builder sslOptions(SslOptions sslOptions) {
            if (sslOptions == null) {
                throw new IllegalArgumentException("sslOptions must not be null");
            }
            this.sslOptions = sslOptions;
            return this;
        }

        /** Where the provider's pub/sub thread comes from (e.g. a container-managed factory). */
        public Builder threadFactory(ThreadFactory threadFactory) {
            if (threadFactory == null) {
                throw new IllegalArgumentException("threadFactory must not be null");
            }
            this.threadFactory = threadFactory;
            return this;
        }

        public JedisLockProvider build() {
            if (client != null) {
                return new JedisLockProvider(this, client, false);
            }
            URI u = uri != null ? uri : URI.create(target);
            if (sslOptions != null && !JedisURIHelper.isRedisSSLScheme(u)) {
                throw new IllegalArgumentException("sslOptions were given but the uri is not rediss://: " + redact(u)
                        + " (the connection would be plaintext)");
            }
            DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                    .connectionTimeoutMillis(millis(connectTimeout))
                    .socketTimeoutMillis(millis(timeout))
                    .clientName(clientName);
            if (JedisURIHelper.isRedisSSLScheme(u)) {
                config.sslOptions(sslOptions != null ? sslOptions : SslOptions.defaults());
            }
            String user = JedisURIHelper.getUser(u);
            String password = JedisURIHelper.getPassword(u);
            if (password != null) {
                config.user(user).password(password);
            }
            if (JedisURIHelper.hasDbIndex(u)) {
                config.database(JedisURIHelper.getDBIndex(u));
            }
            GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
            pool.setMaxTotal(maxConnections + 1);
            pool.setMaxIdle(maxConnections + 1);
            pool.setMaxWait(timeout);
            // First come, first served. Unfair, a thread that just returned a connection takes it
            // straight back, and with more threads than connections waiters starve past the
            // timeout (lock calls, batched over two connections, no longer crowd the pool; an
            // application's own use of a shared client may).
            pool.setFairness(true);
            pool.setJmxEnabled(false);
            RedisClient redis = RedisClient.builder()
                    .hostAndPort(JedisURIHelper.getHostAndPort(u))
                    .clientConfig(config.build())
                    .poolConfig(pool)
                    .build();
            return new JedisLockProvider(this, redis, true);
        }

        private static Duration positive(Duration d, String argument) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(argument + " must be positive, was " + d);
            }
            if (d.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException(argument + " must be at most one day, was " + d);
            }
            return d;
        }

        private static int millis(Duration d) {
            return (int) Math.min(Integer.MAX_VALUE, Math.max(1, d.toMillis()));
        }

        private static String redact(URI u) {
            return u.getUserInfo() == null ? u.toString() : u.toString().replace(u.getRawUserInfo() + "@", "***@");
        }
    }
}
