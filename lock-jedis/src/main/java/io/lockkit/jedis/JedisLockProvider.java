package io.lockkit.jedis;

import io.lockkit.LockException;
import io.lockkit.jedis.internal.AcquireScript;
import io.lockkit.jedis.internal.Arg;
import io.lockkit.jedis.internal.CapacityScript;
import io.lockkit.jedis.internal.ClientName;
import io.lockkit.jedis.internal.ClientPrefix;
import io.lockkit.jedis.internal.InspectScript;
import io.lockkit.jedis.internal.Keys;
import io.lockkit.jedis.internal.Listing;
import io.lockkit.jedis.internal.QueuedWaits;
import io.lockkit.jedis.internal.RedisCalls;
import io.lockkit.jedis.internal.RedisClients;
import io.lockkit.jedis.internal.ReleaseScript;
import io.lockkit.jedis.internal.Renewals;
import io.lockkit.jedis.internal.ReplicaAcknowledgement;
import io.lockkit.jedis.internal.Scripts;
import io.lockkit.jedis.internal.SharedScript;
import io.lockkit.jedis.internal.Topology;
import io.lockkit.jedis.internal.WakeUps;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;

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
 * within a process is one command. A waiter of another process gets it outright too, for at most
 * the claim timeout until its process renews it, and a message on the lock's channel carries its
 * token to that process, so a hand-off between processes needs no call of the waiter's either (a
 * waiter that is gone costs only the claim timeout); a waiter of an earlier version is told by
 * the message and claims the lock with one more call. A contended acquisition costs at most three
 * commands, however many wait.
 * A multi-lock's attempts and releases ({@link #tryAcquireAll}, {@link #releaseAll}) are these
 * same script calls sent together: one round trip each on one node, one batch per node on a Cluster.
 *
 * <p>Shared holds (read locks, semaphore permits; {@code shared.lua}) live in the same hash, one
 * field per holder with its count, weight, token and own lease deadline, so an exclusive attempt
 * finds them with no command more; every shared attempt drops the lapsed ones, and the hash's TTL
 * is the latest lease of its holders. A bounded name's capacity is a key of its own without expiry ({@code <key>:cap}).
 * Fair claims queue in the lock's wait queue; a release hands over in arrival order then, and never
 * to a shared claim (it publishes a wake-up without a grantee instead).
 *
 * <p>Inspection and listing use read commands only: {@link #inspect} is one script call (owner,
 * hold count, lease left, fencing token, live waiters); a page of {@link #list} is one {@code SCAN}
 * and one pipelined read, over every master of a Cluster; never {@code KEYS}.
 *
 * <p>Threads and connections: one pub/sub thread and connection, started by the first acquisition
 * that may wait (a Redis 7 Cluster: one per shard, on the first wait there); the
 * factory adds two scheduler threads for renewals and lease deadlines. On a single node
 * ({@code RedisClient}) the lock and unlock calls of all threads share two pooled connections: calls
 * that arrive while both are busy go out together in one pipelined write, in arrival order, so 32
 * threads locking at once cost Redis a few batches, not 32 connections' worth of reads and writes;
 * the next batch goes out before the callers of the last one are woken; with a client the provider
 * made, the two stay with the lock calls between batches (no borrow and return per batch).
 * Renewals and, on Sentinel and Cluster, every call borrow pooled connections (at most
 * {@link JedisLockProviderBuilder#maxConnections(int)}) for the duration of a call. A parked waiter holds none.
 */
public final class JedisLockProvider implements LockProvider {

    /** The namespace of every key unless configured: {@code lockkit}. */
    public static final String DEFAULT_KEY_PREFIX = "lockkit";
    /** How long a command may take, including waiting for a pooled connection: 2 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** How long a lock handed to a waiter of another process stays with it until that process claims or renews it: 2 s. */
    public static final Duration DEFAULT_CLAIM_TIMEOUT = Duration.ofSeconds(2);
    /** How long a released lock's hash keeps its last fencing token: 60 s. */
    public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofSeconds(60);
    /** How many hand-overs in a row may stay within one process ahead of older waiters elsewhere: 8. */
    public static final int DEFAULT_LOCAL_HAND_OFFS = 8;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.allOf(Capability.class));

    private final UnifiedJedis jedis;
    private final RedisCalls calls;
    private final boolean ownsClient;
    /** The name of the connections of a client the provider made; null for the application's client. */
    private final @Nullable ClientName clientName;

    private final Keys keys;
    private final Duration claimTimeout;
    private final Duration fenceRetention;
    private final int localHandOffs;
    /** Acquisitions wait for replicas when configured; else null. */
    private final @Nullable ReplicaAcknowledgement replicaAcknowledgement;

    private final Topology topology;
    private final Renewals renewals;
    private final Listing listing;
    private final QueuedWaits queued = new QueuedWaits();
    // Made here, not in close(): Payara refuses to define a lambda's class while it undeploys.
    private final QueuedWaits.Abandon leaveQueue = this::abandon;
    private final String description;
    private final ClientPrefix clientPrefix = new ClientPrefix();

    // clientName: the name of the connections of a client the provider made; null for the application's client.
    JedisLockProvider(JedisLockProviderBuilder b, UnifiedJedis jedis, @Nullable ClientName clientName) {
        this.jedis = jedis;
        this.calls = new RedisCalls(jedis, b.maxConnections, b.timeout, clientName != null);
        this.ownsClient = clientName != null;
        this.clientName = clientName;
        this.keys = new Keys(b.keyPrefix);
        this.claimTimeout = b.claimTimeout;
        this.fenceRetention = b.fenceRetention;
        this.localHandOffs = b.localHandOffs;
        this.replicaAcknowledgement =
                b.replicas > 0 ? new ReplicaAcknowledgement(jedis, b.replicas, b.replicaTimeout) : null;
        String id = Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36);
        AtomicInteger n = new AtomicInteger();
        ThreadFactory threads = b.threadFactory != null
                ? b.threadFactory
                : r -> new Thread(r, "lockkit-redis-" + id + "-" + n.incrementAndGet());
        this.topology = new Topology(jedis, b.keyPrefix + ":ctl", threads, b.timeout);
        this.renewals = new Renewals(jedis, topology, keys);
        this.listing = new Listing(jedis, topology, keys);
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

    /** A builder of a provider; {@link JedisLockProviderBuilder#build()} makes it. */
    public static JedisLockProviderBuilder builder() {
        return new JedisLockProviderBuilder();
    }

    // ---- LockProvider: one script call each, through RedisCalls (closed check, retry, errors) ----

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        String name = request.name();
        String owner = request.owner();
        if (request.waiting() && !calls.closed() && !topology.cluster() && topology.existingWakeUps() == null) {
            // The first lock that may wait starts the pub/sub thread and connection (without
            // waiting for them): from then on the provider's threads are fixed, and the first
            // contended wait does not pay for the connection. Cluster shards start on demand.
            topology.wakeUps(name).start();
        }
        Keys.Encoded encoded = keys.encoded(name);
        String base = encoded.base();
        AcquireScript.Call call = attempt(request, encoded);
        AcquireScript.Reply reply;
        try {
            reply = calls.run(
                    name,
                    () -> replicaAcknowledgement != null
                            ? replicaAcknowledgement.acquire(name, base, call, this::release)
                            : call.run(calls));
        } catch (IllegalArgumentException e) {
            throw e; // a claim of more permits than the stored capacity: refused, never queued
        } catch (RuntimeException e) {
            if (request.waiting()) { // the call may have queued the owner before its reply was lost
                queued.queued(name, owner, request.waitId());
            }
            throw e;
        }
        if (reply instanceof AcquireScript.Acquired acquired) {
            queued.ended(name, owner);
            return Acquisition.acquired(acquired.token());
        }
        if (request.waiting()) {
            queued.queued(name, owner, request.waitId());
        }
        return Acquisition.busy(((AcquireScript.Busy) reply).remainingLease());
    }

    /**
     * The script call of one attempt: {@code acquire.lua} for an exclusive claim (fair or not),
     * {@code shared.lua} for a shared one. The slack of a queue entry past the owner's next
     * retry is the claim timeout.
     */
    private AcquireScript.Call attempt(LockRequest request, Keys.Encoded keys) {
        Claim claim = request.claim();
        String owner = request.owner();
        if (claim.exclusive()) {
            AcquireScript.Args args = new AcquireScript.Args(
                    owner,
                    request.lease(),
                    request.maxWait(),
                    claimTimeout,
                    queued.mayBeQueued(request.name(), owner),
                    request.waitId(),
                    claim.fair());
            return new AcquireScript.Call(Scripts.ACQUIRE, keys.all(), args.encode(), owner, AcquireScript::decode);
        }
        String beside = claim.beside();
        SharedScript.Args args = new SharedScript.Args(
                owner,
                request.lease(),
                request.maxWait(),
                claimTimeout,
                request.waitId(),
                claim.weight(),
                claim.capacity(),
                claim.fair(),
                beside == null ? "" : beside);
        int weight = claim.weight();
        return new AcquireScript.Call(
                Scripts.SHARED, keys.shared(), args.encode(), owner, reply -> SharedScript.decode(reply, weight));
    }

    /**
     * Attempts that do not wait at several names in one round trip: the same script calls as
     * {@link #tryAcquire}'s, sent together (on a single node one pipelined write through the
     * batcher; on Sentinel one pipeline; on a Cluster one pipeline that Jedis splits into one
     * batch per node, since names in different slots live on different nodes). Attempts that may
     * wait, and acquisitions that wait for replicas, go one by one as {@link #tryAcquire}.
     */
    @Override
    public List<Acquisition> tryAcquireAll(List<LockRequest> requests) {
        if (requests.size() < 2
                || replicaAcknowledgement != null
                || requests.stream().anyMatch(LockRequest::waiting)) {
            return LockProvider.super.tryAcquireAll(requests);
        }
        List<AcquireScript.Call> attempts = new ArrayList<>(requests.size());
        List<Scripts.Invocation> invocations = new ArrayList<>(requests.size());
        for (LockRequest r : requests) {
            AcquireScript.Call c = attempt(r, keys.encoded(r.name()));
            attempts.add(c);
            invocations.add(new Scripts.Invocation(c.script(), c.keys(), c.args()));
        }
        List<Object> replies = calls.run(requests.get(0).name(), () -> calls.scripts(invocations));
        List<Acquisition> answers = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            AcquireScript.Reply reply = attempts.get(i).decoder().apply(replies.get(i));
            if (reply instanceof AcquireScript.Acquired acquired) {
                queued.ended(requests.get(i).name(), requests.get(i).owner());
                answers.add(Acquisition.acquired(acquired.token()));
            } else {
                answers.add(Acquisition.busy(((AcquireScript.Busy) reply).remainingLease()));
            }
        }
        return answers;
    }

    /** Releases of several holds in one round trip, sent together as {@link #tryAcquireAll} sends its attempts. */
    @Override
    public List<Release> releaseAll(List<ReleaseRequest> holds) {
        if (holds.size() < 2) {
            return LockProvider.super.releaseAll(holds);
        }
        calls.checkOpen(holds.get(0).name());
        List<Scripts.Invocation> invocations = new ArrayList<>(holds.size());
        for (ReleaseRequest h : holds) {
            invocations.add(releaseCall(h.name(), h.owner(), ReleaseScript.Mode.RELEASE, 0));
        }
        List<Object> replies = calls.run(holds.get(0).name(), () -> calls.scripts(invocations));
        List<Release> answers = new ArrayList<>(holds.size());
        for (int i = 0; i < holds.size(); i++) {
            ReleaseScript.Reply reply = ReleaseScript.decode(replies.get(i));
            if (reply instanceof ReleaseScript.Granted g) {
                queued.granted(holds.get(i).name(), g.grantee(), g.waitId());
            }
            answers.add(ReleaseScript.toRelease(reply));
        }
        return answers;
    }

    @Override
    public Release release(String name, String owner) {
        ReleaseScript.Reply reply = runRelease(name, owner, ReleaseScript.Mode.RELEASE, 0);
        if (reply instanceof ReleaseScript.Granted g) {
            queued.granted(name, g.grantee(), g.waitId()); // the script removed the grantee's queue entry
        }
        return ReleaseScript.toRelease(reply);
    }

    @Override
    public void abandon(String name, String owner, long waitId) {
        runRelease(name, owner, ReleaseScript.Mode.ABANDON, waitId);
        queued.ended(name, owner);
    }

    @Override
    public boolean forceRelease(String name) {
        return !(runRelease(name, "", ReleaseScript.Mode.FORCE, 0) instanceof ReleaseScript.NotHeld);
    }

    private ReleaseScript.Reply runRelease(String name, String owner, ReleaseScript.Mode mode, long waitId) {
        calls.checkOpen(name);
        Scripts.Invocation c = releaseCall(name, owner, mode, waitId);
        return calls.run(name, () -> ReleaseScript.decode(calls.script(c.script(), c.keys(), c.args())));
    }

    /** The script call of a release, an abandon or a forced release. */
    private Scripts.Invocation releaseCall(String name, String owner, ReleaseScript.Mode mode, long waitId) {
        Keys.Encoded encoded = keys.encoded(name);
        // One nonce per call, the same for run()'s retry: the script records it when it lowers a
        // reentrant hold count, so a retry whose first attempt ran (reply lost) does not lower the
        // count again and free the lock under an owner that still holds it once.
        Arg nonce = Arg.base36(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        // Only a release's caller hears the grantee from the reply and wakes a waiter of its own
        // client; an abandon's caller does not, so its hand-over is always published.
        Arg localPrefix = mode == ReleaseScript.Mode.RELEASE ? clientPrefix.of(owner) : ClientPrefix.NONE;
        ReleaseScript.Args args = new ReleaseScript.Args(
                owner,
                mode,
                claimTimeout,
                fenceRetention,
                encoded.channel(),
                topology.publishCommand(),
                localPrefix,
                localHandOffs,
                nonce,
                waitId);
        return new Scripts.Invocation(Scripts.RELEASE, encoded.all(), args.encode());
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        if (renewals.isEmpty()) {
            calls.checkOpen(null);
            return List.of();
        }
        return calls.run(renewals.get(0).name(), () -> this.renewals.renew(renewals));
    }

    /**
     * Stores {@code capacity} as the capacity of {@code name}'s shared holds (an operator's change of
     * a semaphore's size) and wakes its waiters; holders over a reduced capacity keep their permits
     * until they release or lapse, and none is granted until the weights held fit. One script call.
     *
     * @throws IllegalArgumentException when {@code capacity} is below 1
     */
    @Override
    public void setCapacity(String name, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        String base = keys.base(name);
        CapacityScript.Args args = new CapacityScript.Args(capacity, Keys.channel(base), topology.publishCommand());
        calls.run(name, () -> calls.script(Scripts.CAPACITY, CapacityScript.keys(base), args.encode()));
    }

    @Override
    public Optional<LockState> inspect(String name) {
        List<Arg> keyList = keys.encoded(name).shared();
        InspectScript.Reply reply =
                calls.run(name, () -> InspectScript.decode(calls.script(Scripts.INSPECT, keyList, List.of())));
        return reply instanceof InspectScript.Held held ? Optional.of(Listing.state(held)) : Optional.empty();
    }

    /** A page of held locks by name prefix (see the design notes of {@code internal.Listing}); the cursor holds no connection. */
    @Override
    public ListPage list(String prefix, @Nullable String cursor, int pageSize) {
        ListPage.checkArguments(prefix, pageSize);
        return calls.run(null, () -> listing.page(prefix, cursor, pageSize));
    }

    @Override
    public Subscription subscribe(String name, WakeUpListener listener) {
        return calls.run(name, () -> topology.wakeUps(name).subscribe(Keys.channel(keys.base(name)), name, listener));
    }

    /**
     * Names the connections opened from now on after {@code clientId} ({@code CLIENT LIST} shows it
     * as {@code name=}), unless {@link JedisLockProviderBuilder#clientName} set a name or the application gave its
     * own client; only the first factory's id counts.
     */
    @Override
    public void useClientId(String clientId) {
        if (clientName != null) {
            calls.dropKeptConnections(); // named before; adoptClientId drops the pool's idle ones
            RedisClients.adoptClientId(jedis, clientName, clientId);
        }
    }

    /**
     * All of them: fencing tokens, force release, explicit leases, inspection, listing, shared holds
     * and fair queues. Answers after {@link #close()} too.
     */
    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    /**
     * Leaves the wait queues, closes the wake-ups and, when the provider made it, the client. Holds
     * are not released. Idempotent; afterwards every call but {@link #capabilities()} and this one
     * throws {@link LockException}.
     */
    @Override
    public void close() {
        if (calls.closed()) {
            return;
        }
        // Leave no queue entry behind for a hand-over to a waiter that is gone (waiters still
        // parked are woken below and fail with "closed").
        queued.leaveAll(leaveQueue);
        calls.close();
        topology.close(); // no wake-ups are created after this
        if (ownsClient) {
            jedis.close();
        }
    }

    /** Number of lock channels this provider is subscribed to (for tests, through their ProviderProbe). */
    int subscribedChannels() {
        WakeUps w = topology.existingWakeUps();
        return w == null ? 0 : w.channels();
    }

    /** Batches the single-node batcher wrote (round trips; for tests, through their ProviderProbe); -1 without one. */
    long batches() {
        return calls.batches();
    }

    /** Whether wake-ups use sharded pub/sub (a Redis 7+ Cluster; for tests, through their ProviderProbe). */
    boolean usesShardedPubSub() {
        return topology.sharded();
    }

    @Override
    public String toString() {
        return description;
    }
}
