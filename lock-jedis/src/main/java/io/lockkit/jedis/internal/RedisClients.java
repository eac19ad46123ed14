package io.lockkit.jedis.internal;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * From a {@code redis://} or {@code rediss://} URI and the builder's options to a Jedis client
 * with its connection pool: URI checks that name the argument, the client configuration (timeouts,
 * client name, credentials, database, TLS), and a fair pool. Stateless and thread-safe.
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

    /** What a client is made from. */
    public record Options(
            String clientName,
            Duration timeout,
            Duration connectTimeout,
            int maxConnections,
            @Nullable SslOptions sslOptions) {}

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
        if (options.sslOptions() != null && !JedisURIHelper.isRedisSSLScheme(u)) {
            throw new IllegalArgumentException("sslOptions were given but the uri is not rediss://: " + redact(u)
                    + " (the connection would be plaintext)");
        }
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis(options.connectTimeout()))
                .socketTimeoutMillis(millis(options.timeout()))
                .clientName(options.clientName());
        if (JedisURIHelper.isRedisSSLScheme(u)) {
            config.sslOptions(options.sslOptions() != null ? options.sslOptions() : SslOptions.defaults());
        }
        String user = JedisURIHelper.getUser(u);
        String password = JedisURIHelper.getPassword(u);
        if (password != null) {
            config.user(user).password(password);
        }
        if (JedisURIHelper.hasDbIndex(u)) {
            config.database(JedisURIHelper.getDBIndex(u));
        }
        return RedisClient.builder()
                .hostAndPort(JedisURIHelper.getHostAndPort(u))
                .clientConfig(config.build())
                .poolConfig(pool(options))
                .build();
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
