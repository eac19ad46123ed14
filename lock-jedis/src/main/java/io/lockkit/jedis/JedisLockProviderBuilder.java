package io.lockkit.jedis;

import static io.lockkit.spi.support.Arguments.atLeast;
import static io.lockkit.spi.support.Arguments.notNull;
import static io.lockkit.spi.support.Arguments.positive;

import io.lockkit.BackendUnavailableException;
import io.lockkit.jedis.internal.ClientName;
import io.lockkit.jedis.internal.RedisClients;
import io.lockkit.spi.support.Causes;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.UnifiedJedis;

/**
 * Configures a {@link JedisLockProvider}, made by {@link JedisLockProvider#builder()}. Setters validate their
 * argument and throw {@link IllegalArgumentException} naming it. Not thread-safe.
 */
public final class JedisLockProviderBuilder {
    private @Nullable URI uri;
    private @Nullable UnifiedJedis client;
    String target = "redis://localhost:6379";
    String keyPrefix = JedisLockProvider.DEFAULT_KEY_PREFIX;
    private @Nullable String clientName;
    Duration timeout = JedisLockProvider.DEFAULT_TIMEOUT;
    private Duration connectTimeout = JedisLockProvider.DEFAULT_TIMEOUT;
    Duration claimTimeout = JedisLockProvider.DEFAULT_CLAIM_TIMEOUT;
    Duration fenceRetention = JedisLockProvider.DEFAULT_FENCE_RETENTION;
    int replicas;
    Duration replicaTimeout = Duration.ofMillis(100);
    int maxConnections = 16;
    int localHandOffs = JedisLockProvider.DEFAULT_LOCAL_HAND_OFFS;

    @Nullable
    ThreadFactory threadFactory;

    private @Nullable SslOptions sslOptions;
    private @Nullable String sentinelMaster;
    /** The Sentinels, or a Cluster's seed nodes ({@link #cluster}), or empty. */
    private Set<HostAndPort> nodes = Set.of();

    private RedisClients.@Nullable Credentials credentials;
    private RedisClients.@Nullable Credentials sentinelCredentials;
    private boolean tls;

    JedisLockProviderBuilder() {}

    /** The Redis to use: {@code redis://[[user]:password@]host[:port][/database]}, or {@code rediss://} for TLS. */
    public JedisLockProviderBuilder uri(String uri) {
        URI parsed = RedisClients.parse(uri);
        clearTarget();
        this.uri = parsed;
        this.target = RedisClients.redact(parsed);
        return this;
    }

    /** A client the application already has and keeps owning (standalone, Sentinel or Cluster). */
    public JedisLockProviderBuilder client(UnifiedJedis client) {
        notNull(client, "client");
        clearTarget();
        this.client = client;
        this.target = client.getClass().getSimpleName();
        return this;
    }

    /**
     * The master that Redis Sentinel knows as {@code masterName}, found through these Sentinels
     * ({@code host:port} each); the provider follows failovers.
     */
    public JedisLockProviderBuilder sentinel(String masterName, Collection<String> sentinels) {
        if (masterName == null || masterName.isBlank()) {
            throw new IllegalArgumentException("masterName must not be null or blank");
        }
        Set<HostAndPort> parsed = RedisClients.nodes(sentinels, "sentinels");
        clearTarget();
        this.nodes = parsed;
        this.sentinelMaster = masterName;
        this.target = "sentinel master " + masterName + " via " + parsed;
        return this;
    }

    /** A Redis Cluster, found through these seed nodes ({@code host:port} each). */
    public JedisLockProviderBuilder cluster(Collection<String> nodes) {
        Set<HostAndPort> parsed = RedisClients.nodes(nodes, "nodes");
        clearTarget();
        this.nodes = parsed;
        this.target = "cluster via " + parsed;
        return this;
    }

    /** A URI, a client, Sentinel and Cluster exclude each other: the last one set counts. */
    private void clearTarget() {
        uri = null;
        client = null;
        sentinelMaster = null;
        nodes = Set.of();
    }

    /**
     * User (null: the default user) and password of the Redis nodes that hold the locks (for a
     * URI: instead of its user info).
     */
    public JedisLockProviderBuilder credentials(@Nullable String user, String password) {
        this.credentials = RedisClients.Credentials.of(user, password, "credentials");
        return this;
    }

    /** User (null: the default user) and password of the Sentinels, when they require AUTH. */
    public JedisLockProviderBuilder sentinelCredentials(@Nullable String user, String password) {
        this.sentinelCredentials = RedisClients.Credentials.of(user, password, "sentinelCredentials");
        return this;
    }

    /** TLS to the Sentinels and to Cluster or Sentinel nodes (a URI says it by its scheme, {@code rediss://}). */
    public JedisLockProviderBuilder tls(boolean tls) {
        this.tls = tls;
        return this;
    }

    /** The namespace of every key, so applications sharing a Redis keep apart; no braces or spaces. */
    public JedisLockProviderBuilder keyPrefix(String keyPrefix) {
        if (keyPrefix == null
                || keyPrefix.isEmpty()
                || keyPrefix.length() > 128
                || !keyPrefix.matches("[\\x21-\\x7e&&[^{}]]+")) {
            throw new IllegalArgumentException(
                    "keyPrefix must be 1 to 128 printable ASCII characters without braces or spaces, was '" + keyPrefix
                            + "'");
        }
        this.keyPrefix = keyPrefix;
        return this;
    }

    /**
     * The name the provider's connections carry in {@code CLIENT LIST}, instead of the client
     * id of the factory built over the provider ({@code <host>/<pid>/<suffix>}, which tells the
     * instances apart); a name given here is the same in every JVM that gives it.
     */
    public JedisLockProviderBuilder clientName(String clientName) {
        if (clientName == null || clientName.isEmpty() || !clientName.matches("[\\x21-\\x7e]+")) {
            throw new IllegalArgumentException(
                    "clientName must be printable ASCII without spaces, was '" + clientName + "'");
        }
        this.clientName = clientName;
        return this;
    }

    /** How long a command may take, including the wait for a pooled connection. */
    public JedisLockProviderBuilder timeout(Duration timeout) {
        this.timeout = positive(timeout, "timeout");
        return this;
    }

    /** How long connecting may take. */
    public JedisLockProviderBuilder connectTimeout(Duration connectTimeout) {
        this.connectTimeout = positive(connectTimeout, "connectTimeout");
        return this;
    }

    /**
     * How long a lock handed to a waiter of another process stays with it until that process
     * claims or renews it (a grant's first lease is at most this); a dead waiter costs at most this.
     */
    public JedisLockProviderBuilder claimTimeout(Duration claimTimeout) {
        this.claimTimeout = positive(claimTimeout, "claimTimeout");
        return this;
    }

    /**
     * How long a released lock's hash keeps its last fencing token (memory per recently used
     * name). Past it, and when a lease lapses without a release, the server clock alone keeps
     * tokens increasing.
     */
    public JedisLockProviderBuilder fenceRetention(Duration fenceRetention) {
        this.fenceRetention = positive(fenceRetention, "fenceRetention");
        return this;
    }

    /**
     * After each acquisition, wait up to {@code timeout} for {@code replicas} replicas to
     * acknowledge it ({@code WAIT}); with fewer, the acquisition is undone and fails with
     * {@link ReplicaAcknowledgementException}. Zero replicas turns this off.
     */
    public JedisLockProviderBuilder replicaAcknowledgement(int replicas, Duration timeout) {
        this.replicas = atLeast(replicas, 0, "replicas");
        this.replicaTimeout = positive(timeout, "timeout");
        return this;
    }

    /**
     * How many hand-overs in a row may go to a waiter of the releasing process ahead of older
     * waiters of other processes: such a hand-over needs no pub/sub hop, so it is faster, at
     * the price of strict arrival order. Zero gives strict FIFO across processes.
     */
    public JedisLockProviderBuilder localHandOffs(int localHandOffs) {
        this.localHandOffs = atLeast(localHandOffs, 0, "localHandOffs");
        return this;
    }

    /** The most pooled connections used for commands (the pub/sub connection comes on top). */
    public JedisLockProviderBuilder maxConnections(int maxConnections) {
        this.maxConnections = atLeast(maxConnections, 1, "maxConnections");
        return this;
    }

    /** Trust and key stores for {@code rediss://} (default: the JVM's trust store). */
    public JedisLockProviderBuilder sslOptions(SslOptions sslOptions) {
        this.sslOptions = notNull(sslOptions, "sslOptions");
        return this;
    }

    /**
     * Trust and key stores for TLS as loaded key stores, the same as {@link #sslOptions} with
     * them (for callers that use no Jedis type); either may be null, {@code keyPassword} opens
     * the key store's keys.
     */
    public JedisLockProviderBuilder tlsStores(
            java.security.@Nullable KeyStore trustStore,
            java.security.@Nullable KeyStore keyStore,
            char @Nullable [] keyPassword) {
        return sslOptions(RedisClients.sslOptions(trustStore, keyStore, keyPassword));
    }

    /** Where the provider's pub/sub thread comes from (e.g. a container-managed factory). */
    public JedisLockProviderBuilder threadFactory(ThreadFactory threadFactory) {
        this.threadFactory = notNull(threadFactory, "threadFactory");
        return this;
    }

    /**
     * The provider: over the given client, or over a new client for the URI (default
     * {@code redis://localhost:6379}), the Sentinel master or the Cluster, which the provider
     * owns and closes.
     *
     * @throws IllegalArgumentException when {@link #sslOptions} were given for a plaintext
     *     connection, credentials twice (here and in the URI), or Sentinel credentials without Sentinel
     * @throws BackendUnavailableException when no Sentinel or Cluster node answers (their clients
     *     ask at once)
     */
    public JedisLockProvider build() {
        if (client != null) {
            return new JedisLockProvider(this, client, null);
        }
        if (sentinelCredentials != null && sentinelMaster == null) {
            throw new IllegalArgumentException("sentinelCredentials were given without sentinel(...)");
        }
        RedisClients.Options options = new RedisClients.Options(
                clientName != null ? ClientName.given(clientName) : ClientName.fromClientId(),
                timeout,
                connectTimeout,
                maxConnections,
                sslOptions,
                credentials,
                tls);
        UnifiedJedis owned;
        if (sentinelMaster != null || !nodes.isEmpty()) {
            try { // these clients ask the Sentinels or the Cluster at once
                owned = sentinelMaster != null
                        ? RedisClients.sentinel(sentinelMaster, nodes, sentinelCredentials, options)
                        : RedisClients.cluster(nodes, options);
            } catch (redis.clients.jedis.exceptions.JedisException e) {
                throw new BackendUnavailableException(null, target + " could not be reached: " + Causes.describe(e), e);
            }
        } else {
            owned = RedisClients.standalone(uri != null ? uri : URI.create(target), options);
        }
        return new JedisLockProvider(this, owned, options.clientName());
    }
}
