package io.lockkit.jedis.internal;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * From the builder's target (a {@code redis://} or {@code rediss://} URI, a Sentinel master or a
 * Cluster's seed nodes) and options to a Jedis client with its connection pool: checks that name
 * the argument, the client configuration (timeouts, client name, credentials, database, TLS), and a
 * fair pool. Stateless and thread-safe.
 */
public final class RedisClients {

    /**
     * Classes that closing the client loads for the first time (found with -verbose:class): loaded
     * with this class, because a server that stops an application's class loader before destroying
     * its beans (Payara Micro on redeploy) refuses to load them at close, and the pool's connections
     * would stay open. (This class is initialized by the builder's {@code uri} or {@code build},
     * before any client it makes exists.)
     */
    @SuppressWarnings("unused") // held for its side effect: the classes are loaded
    private static final List<Class<?>> CLOSE_PATH =
            preload("redis.clients.jedis.util.IOUtils", "org.apache.commons.pool2.DestroyMode");

    private RedisClients() {}

    /** What a client is made from; {@code credentials} are the data nodes' (null: the URI's, or none). */
    public record Options(
            ClientName clientName,
            Duration timeout,
            Duration connectTimeout,
            int maxConnections,
            @Nullable SslOptions sslOptions,
            @Nullable Credentials credentials,
            boolean tls) {}

    /** A user (null: the default user) and password for AUTH; never shown. */
    public record Credentials(@Nullable String user, String password) {
        /**
         * Checked credentials.
         *
         * @throws IllegalArgumentException naming {@code argument} when the password is null or empty
         */
        public static Credentials of(@Nullable String user, @Nullable String password, String argument) {
            if (password == null || password.isEmpty()) {
                throw new IllegalArgumentException(argument + " needs a password");
            }
            return new Credentials(user == null || user.isEmpty() ? null : user, password);
        }

        @Override
        public String toString() {
            return "Credentials[" + (user == null ? "default user" : user) + ", ***]";
        }
    }

    /**
     * Checks {@code host:port} addresses given to the builder.
     *
     * @throws IllegalArgumentException naming {@code argument} when there are none or one is not {@code host:port}
     */
    public static Set<HostAndPort> nodes(@Nullable Collection<String> nodes, String argument) {
        if (nodes == null || nodes.isEmpty()) {
            throw new IllegalArgumentException(argument + " must name at least one host:port");
        }
        Set<HostAndPort> parsed = new LinkedHashSet<>();
        for (String node : nodes) {
            String n = node == null ? "" : node.strip();
            int colon = n.lastIndexOf(':');
            int port = -1;
            if (colon > 0 && n.substring(colon + 1).matches("\\d{1,5}")) {
                port = Integer.parseInt(n.substring(colon + 1));
            }
            if (port < 1 || port > 65535 || n.substring(0, colon).isBlank()) {
                throw new IllegalArgumentException(
                        argument + " must be host:port addresses with a port in 1..65535, was '" + node + "'");
            }
            String host = n.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1); // [::1]:6379
            }
            parsed.add(new HostAndPort(host, port));
        }
        return Set.copyOf(parsed);
    }

    private static List<Class<?>> preload(String... names) {
        List<Class<?>> loaded = new ArrayList<>();
        for (String name : names) {
            try {
                loaded.add(Class.forName(name, true, RedisClients.class.getClassLoader()));
            } catch (ClassNotFoundException | LinkageError e) {
                // another Jedis or commons-pool version: nothing to preload under that name
            }
        }
        return List.copyOf(loaded);
    }

    /**
     * Checks a URI given to the builder.
     *
     * @throws IllegalArgumentException naming {@code uri} when it is not a usable Redis URI
     */
    public static URI parse(String uri) {
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
            throw new IllegalArgumentException(
                    "uri must look like redis://host:port or rediss://host:port, was " + redact(parsed));
        }
        if (parsed.getPort() != -1 && (parsed.getPort() < 1 || parsed.getPort() > 65535)) {
            throw new IllegalArgumentException(
                    "uri has port " + parsed.getPort() + ", not within 1..65535: " + redact(parsed));
        }
        String path = parsed.getPath();
        if (path != null && !path.isEmpty() && !path.equals("/") && !path.matches("/\\d{1,9}")) {
            throw new IllegalArgumentException(
                    "uri must name the database as /<number>, was '" + path + "' in " + redact(parsed));
        }
        return parsed;
    }

    /** The URI without its password, for messages and {@code toString}. */
    public static String redact(URI u) {
        return u.getUserInfo() == null ? u.toString() : u.toString().replace(u.getRawUserInfo() + "@", "***@");
    }

    /**
     * A standalone client for {@code u}.
     *
     * @throws IllegalArgumentException when TLS options were given for a plaintext URI
     */
    public static RedisClient standalone(URI u, Options options) {
        boolean tls = JedisURIHelper.isRedisSSLScheme(u);
        if (options.sslOptions() != null && !tls) {
            throw new IllegalArgumentException("sslOptions were given but the uri is not rediss://: " + redact(u)
                    + " (the connection would be plaintext)");
        }
        if (options.tls() && !tls) {
            throw new IllegalArgumentException("tls was asked for but the uri is not rediss://: " + redact(u));
        }
        DefaultJedisClientConfig.Builder config = config(options, options.credentials(), tls);
        String password = JedisURIHelper.getPassword(u);
        if (password != null) {
            if (options.credentials() != null) {
                throw new IllegalArgumentException(
                        "credentials were given and the uri carries a password too: " + redact(u) + "; keep one");
            }
            config.user(JedisURIHelper.getUser(u)).password(password);
        }
        if (JedisURIHelper.hasDbIndex(u)) {
            config.database(JedisURIHelper.getDBIndex(u));
        }
        return RedisClient.builder()
                .hostAndPort(JedisURIHelper.getHostAndPort(u))
                .clientConfig(named(config, options))
                .poolConfig(pool(options))
                .build();
    }

    /**
     * A client of the master that the Sentinels know as {@code master}; it follows failovers.
     *
     * @throws IllegalArgumentException when TLS options were given without {@code tls}
     */
    public static RedisSentinelClient sentinel(
            String master, Set<HostAndPort> sentinels, @Nullable Credentials sentinelCredentials, Options options) {
        requireTlsForSslOptions(options);
        return RedisSentinelClient.builder()
                .masterName(master)
                .sentinels(sentinels)
                // Jedis talks to Sentinels over RESP2 and warns at every connection unless told not to negotiate.
                .sentinelClientConfig(named(
                        config(options, sentinelCredentials, options.tls()).autoNegotiateProtocol(false), options))
                .clientConfig(named(config(options, options.credentials(), options.tls()), options))
                .poolConfig(pool(options))
                .build();
    }

    /**
     * A client of the Cluster these seed nodes belong to.
     *
     * @throws IllegalArgumentException when TLS options were given without {@code tls}
     */
    public static RedisClusterClient cluster(Set<HostAndPort> nodes, Options options) {
        requireTlsForSslOptions(options);
        return RedisClusterClient.builder()
                .nodes(nodes)
                .clientConfig(named(config(options, options.credentials(), options.tls()), options))
                .poolConfig(pool(options))
                .build();
    }

    /**
     * Names the connections of {@code jedis}, a client made here with {@code name}, after {@code
     * clientId} from now on (see {@link ClientName#adopt}), and drops its idle pooled connections:
     * Jedis opened one while it built the client, under the provisional name.
     */
    public static void adoptClientId(UnifiedJedis jedis, ClientName name, String clientId) {
        if (name.adopt(clientId)) {
            Pools.discardIdle(jedis);
        }
    }

    /**
     * TLS options over loaded key stores (Jedis reads stores from streams: they are written out
     * once, in memory).
     *
     * @throws IllegalArgumentException when a store cannot be written out
     */
    public static SslOptions sslOptions(
            java.security.@Nullable KeyStore trust,
            java.security.@Nullable KeyStore key,
            char @Nullable [] keyPassword) {
        SslOptions.Builder ssl = SslOptions.builder();
        char[] transit = "lockkit".toCharArray();
        if (trust != null) {
            byte[] bytes = bytes(trust, transit, "trustStore");
            ssl.truststore(() -> new java.io.ByteArrayInputStream(bytes), transit)
                    .trustStoreType(trust.getType());
        }
        if (key != null) {
            char[] password = keyPassword == null ? new char[0] : keyPassword.clone();
            byte[] bytes = bytes(key, password, "keyStore");
            ssl.keystore(() -> new java.io.ByteArrayInputStream(bytes), password)
                    .keyStoreType(key.getType());
        }
        return ssl.build();
    }

    private static byte[] bytes(java.security.KeyStore store, char[] password, String argument) {
        try {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            store.store(out, password);
            return out.toByteArray();
        } catch (java.io.IOException | java.security.GeneralSecurityException e) {
            throw new IllegalArgumentException(argument + " cannot be used: " + e.getMessage(), e);
        }
    }

    private static void requireTlsForSslOptions(Options options) {
        if (options.sslOptions() != null && !options.tls()) {
            throw new IllegalArgumentException(
                    "sslOptions were given but tls is off (the connections would be plaintext)");
        }
    }

    private static DefaultJedisClientConfig.Builder config(
            Options options, @Nullable Credentials credentials, boolean tls) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis(options.connectTimeout()))
                .socketTimeoutMillis(millis(options.timeout()));
        if (tls) {
            config.sslOptions(options.sslOptions() != null ? options.sslOptions() : SslOptions.defaults());
        }
        if (credentials != null) {
            config.user(credentials.user()).password(credentials.password());
        }
        return config;
    }

    /** The configuration {@code config} builds, with the connections' name read from the options' {@link ClientName}. */
    private static JedisClientConfig named(DefaultJedisClientConfig.Builder config, Options options) {
        return new NamedClientConfig(config.build(), options.clientName());
    }

    private static GenericObjectPoolConfig<Connection> pool(Options options) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(options.maxConnections() + 1);
        pool.setMaxIdle(options.maxConnections() + 1);
        pool.setMaxWait(options.timeout());
        // First come, first served. Unfair, a thread that just returned a connection takes it
        // straight back, and with more threads than connections waiters starve past the
        // timeout (lock calls, batched over two connections, no longer crowd the pool; an
        // application's own use of a shared client may).
        pool.setFairness(true);
        pool.setJmxEnabled(false);
        return pool;
    }

    private static int millis(Duration d) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, d.toMillis()));
    }
}
