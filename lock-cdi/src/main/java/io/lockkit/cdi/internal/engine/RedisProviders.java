package io.lockkit.cdi.internal.engine;

import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.spi.LockProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * The only class touching lock-jedis (an optional dependency); loaded only for
 * {@code lockkit.provider=redis}. Builds the provider from the {@code lockkit.redis.*} keys:
 * standalone ({@code lockkit.redis.uri}), Sentinel or Cluster, with credentials, TLS trust and key
 * stores, replica acknowledgement, claim timeout and fence retention.
 */
// Design notes.
// - One topology: setting the keys of two (a URI and Sentinel nodes, Sentinel and Cluster nodes) is
//   an error, not a silent choice. Every bad value fails here, at application start (the holder
//   builds the factory then), naming the key and where its value came from.
// - Trust and key stores are read here, at start, so a wrong path or password fails the
//   deployment naming the key, not the first TLS handshake; their bytes are handed to Jedis.
public final class RedisProviders {

    public static final String DEFAULT_URI = "redis://localhost:6379";

    private RedisProviders() {}

    public static LockProvider create(LockkitConfig config, @Nullable ThreadFactory threadFactory) {
        JedisLockProvider.Builder b = JedisLockProvider.builder();
        target(config, b);
        config.string(LockkitConfig.KEY_PREFIX)
                .ifPresent(v -> set(config, LockkitConfig.KEY_PREFIX, () -> b.keyPrefix(v)));
        config.string(LockkitConfig.CLIENT_NAME)
                .ifPresent(v -> set(config, LockkitConfig.CLIENT_NAME, () -> b.clientName(v)));
        config.duration(LockkitConfig.TIMEOUT).ifPresent(v -> set(config, LockkitConfig.TIMEOUT, () -> b.timeout(v)));
        config.duration(LockkitConfig.CONNECT_TIMEOUT)
                .or(() -> config.duration(LockkitConfig.TIMEOUT))
                .ifPresent(v -> set(config, LockkitConfig.CONNECT_TIMEOUT, () -> b.connectTimeout(v)));
        config.integer(LockkitConfig.MAX_CONNECTIONS)
                .ifPresent(v -> set(config, LockkitConfig.MAX_CONNECTIONS, () -> b.maxConnections(v)));
        config.duration(LockkitConfig.CLAIM_TIMEOUT)
                .ifPresent(v -> set(config, LockkitConfig.CLAIM_TIMEOUT, () -> b.claimTimeout(v)));
        config.duration(LockkitConfig.FENCE_RETENTION)
                .ifPresent(v -> set(config, LockkitConfig.FENCE_RETENTION, () -> b.fenceRetention(v)));
        Optional<Integer> replicas = config.integer(LockkitConfig.REPLICAS);
        Optional<Duration> replicaTimeout = config.duration(LockkitConfig.REPLICA_TIMEOUT);
        if (replicas.isPresent() || replicaTimeout.isPresent()) {
            int n = replicas.orElseThrow(() -> config.invalid(
                    LockkitConfig.REPLICA_TIMEOUT,
                    config.string(LockkitConfig.REPLICA_TIMEOUT).orElse(""),
                    "set " + LockkitConfig.REPLICAS + " too (how many replicas must acknowledge)"));
            set(
                    config,
                    LockkitConfig.REPLICAS,
                    () -> b.replicaAcknowledgement(n, replicaTimeout.orElse(DEFAULT_REPLICA_TIMEOUT)));
        }
        tls(config, b);
        if (threadFactory != null) {
            b.threadFactory(threadFactory);
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            // Checks across keys (credentials twice, TLS options for a plaintext target).
            throw new IllegalArgumentException("lockkit.redis.* (from " + config.origin() + "): " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // Sentinel and Cluster clients ask their nodes while they are built.
            throw new IllegalStateException(
                    "lockkit: the lock backend did not answer at application start: " + describe(config) + ": "
                            + e.getMessage() + ". Fix the setting or start the backend; " + LockkitConfig.STARTUP
                            + "=lazy starts without it",
                    e);
        }
    }

    /** The keys that name the Redis: Sentinel's, the Cluster's, or the URI (the default one when none is set). */
    public static String describe(LockkitConfig config) {
        if (config.string(LockkitConfig.SENTINEL_MASTER).isPresent()) {
            return config.describe(LockkitConfig.SENTINEL_MASTER, "") + ", "
                    + config.describe(LockkitConfig.SENTINEL_NODES, "");
        }
        if (config.string(LockkitConfig.CLUSTER_NODES).isPresent()) {
            return config.describe(LockkitConfig.CLUSTER_NODES, "");
        }
        return config.describe(LockkitConfig.REDIS_URI, DEFAULT_URI);
    }

    /** How long an acquisition waits for its replicas unless {@code lockkit.redis.replica-acknowledgement.timeout} says otherwise. */
    static final Duration DEFAULT_REPLICA_TIMEOUT = Duration.ofMillis(100);

    /** The topology: a URI, a Sentinel master, or a Cluster; and the credentials of its nodes. */
    private static void target(LockkitConfig config, JedisLockProvider.Builder b) {
        Optional<String> uri = config.string(LockkitConfig.REDIS_URI);
        Optional<String> master = config.string(LockkitConfig.SENTINEL_MASTER);
        Optional<String> sentinels = config.string(LockkitConfig.SENTINEL_NODES);
        Optional<String> cluster = config.string(LockkitConfig.CLUSTER_NODES);
        List<String> set = new ArrayList<>();
        uri.ifPresent(v -> set.add(LockkitConfig.REDIS_URI));
        if (master.isPresent() || sentinels.isPresent()) {
            set.add(LockkitConfig.SENTINEL_NODES);
        }
        cluster.ifPresent(v -> set.add(LockkitConfig.CLUSTER_NODES));
        if (set.size() > 1) {
            throw new IllegalArgumentException(String.join(" and ", set) + " (from " + config.origin()
                    + ") name two Redis topologies; keep one: a URI (standalone), Sentinel or Cluster");
        }
        if (master.isPresent() != sentinels.isPresent()) {
            String missing = master.isPresent() ? LockkitConfig.SENTINEL_NODES : LockkitConfig.SENTINEL_MASTER;
            throw new IllegalArgumentException(missing + " is not set in " + config.origin() + "; Sentinel needs "
                    + LockkitConfig.SENTINEL_MASTER + " and " + LockkitConfig.SENTINEL_NODES);
        }
        if (master.isPresent()) {
            set(config, LockkitConfig.SENTINEL_NODES, () -> b.sentinel(master.get(), list(sentinels.get())));
        } else if (cluster.isPresent()) {
            set(config, LockkitConfig.CLUSTER_NODES, () -> b.cluster(list(cluster.get())));
        } else {
            set(config, LockkitConfig.REDIS_URI, () -> b.uri(uri.orElse(DEFAULT_URI)));
        }
        credentials(config, LockkitConfig.USER, LockkitConfig.PASSWORD)
                .ifPresent(c -> set(config, LockkitConfig.PASSWORD, () -> b.credentials(c.user(), c.password())));
        Optional<Credentials> sentinel =
                credentials(config, LockkitConfig.SENTINEL_USER, LockkitConfig.SENTINEL_PASSWORD);
        if (sentinel.isPresent() && master.isEmpty()) {
            throw new IllegalArgumentException(LockkitConfig.SENTINEL_PASSWORD + " (from " + config.origin()
                    + ") applies to Sentinel only; " + LockkitConfig.SENTINEL_MASTER + " is not set");
        }
        sentinel.ifPresent(
                c -> set(config, LockkitConfig.SENTINEL_PASSWORD, () -> b.sentinelCredentials(c.user(), c.password())));
    }

    /** User (may be null) and password when a password is set; a user without a password is an error. */
    private record Credentials(@Nullable String user, String password) {}

    private static Optional<Credentials> credentials(LockkitConfig config, String userKey, String passwordKey) {
        Optional<String> user = config.string(userKey);
        Optional<String> password = config.string(passwordKey);
        if (password.isEmpty()) {
            if (user.isPresent()) {
                throw new IllegalArgumentException(
                        userKey + " (from " + config.origin() + ") is set but " + passwordKey + " is not");
            }
            return Optional.empty();
        }
        return Optional.of(new Credentials(user.orElse(null), password.get()));
    }

    private static List<String> list(String nodes) {
        return Arrays.stream(nodes.split(","))
                .map(String::strip)
                .filter(n -> !n.isEmpty())
                .toList();
    }

    /** TLS for Sentinel and Cluster ({@code lockkit.redis.tls}), the trust store and the optional key store. */
    private static void tls(LockkitConfig config, JedisLockProvider.Builder b) {
        config.bool(LockkitConfig.TLS).ifPresent(b::tls);
        Optional<String> trustStore = config.string(LockkitConfig.TRUST_STORE);
        Optional<String> keyStore = config.string(LockkitConfig.KEY_STORE);
        requireStoreFor(config, trustStore, LockkitConfig.TRUST_STORE, LockkitConfig.TRUST_STORE_PASSWORD);
        requireStoreFor(config, trustStore, LockkitConfig.TRUST_STORE, LockkitConfig.TRUST_STORE_TYPE);
        requireStoreFor(config, keyStore, LockkitConfig.KEY_STORE, LockkitConfig.KEY_STORE_PASSWORD);
        requireStoreFor(config, keyStore, LockkitConfig.KEY_STORE, LockkitConfig.KEY_STORE_TYPE);
        if (trustStore.isEmpty() && keyStore.isEmpty()) {
            return;
        }
        KeyStore trust = trustStore
                .map(file -> Store.read(
                        config,
                        LockkitConfig.TRUST_STORE,
                        LockkitConfig.TRUST_STORE_PASSWORD,
                        LockkitConfig.TRUST_STORE_TYPE,
                        file))
                .orElse(null);
        KeyStore key = keyStore.map(file -> Store.read(
                        config,
                        LockkitConfig.KEY_STORE,
                        LockkitConfig.KEY_STORE_PASSWORD,
                        LockkitConfig.KEY_STORE_TYPE,
                        file))
                .orElse(null);
        char[] keyPassword =
                config.string(LockkitConfig.KEY_STORE_PASSWORD).orElse("").toCharArray();
        set(config, LockkitConfig.TRUST_STORE, () -> b.tlsStores(trust, key, keyPassword));
    }

    private static void requireStoreFor(LockkitConfig config, Optional<String> store, String storeKey, String key) {
        if (store.isEmpty() && config.string(key).isPresent()) {
            throw new IllegalArgumentException(
                    key + " (from " + config.origin() + ") is set but " + storeKey + " is not; set both or neither");
        }
    }

    /** A key or trust store read at start, so a wrong file, type or password fails the start naming the key. */
    private static final class Store {
        private Store() {}

        static KeyStore read(LockkitConfig config, String key, String passwordKey, String typeKey, String file) {
            String type = config.string(typeKey).orElseGet(() -> typeOf(file));
            char[] password = config.string(passwordKey).orElse("").toCharArray();
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(Path.of(file));
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException(
                        config.describe(key, "") + ": cannot read the file: " + e.getMessage(), e);
            }
            try {
                KeyStore store = KeyStore.getInstance(type);
                store.load(new java.io.ByteArrayInputStream(bytes), password);
                return store;
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalArgumentException(
                        config.describe(key, "") + ": not a " + type + " store that opens with " + passwordKey + ": "
                                + e.getMessage(),
                        e);
            }
        }

        private static String typeOf(String file) {
            return file.toLowerCase(Locale.ROOT).endsWith(".jks") ? "JKS" : "PKCS12";
        }
    }

    /** Runs a builder setter, naming the configuration key when it rejects the value. */
    private static void set(LockkitConfig config, String key, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " (from " + config.origin() + "): " + e.getMessage(), e);
        }
    }
}
