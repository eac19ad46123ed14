package io.lockkit.jedis;

import io.lockkit.BackendUnavailableException;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.ProviderSettings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The {@code redis} provider for containers and tools: builds a {@link JedisLockProvider} from the
 * {@code lockkit.redis.*} keys ({@link #settings()}), standalone ({@code lockkit.redis.uri}),
 * Sentinel or Cluster, with credentials, TLS trust and key stores, replica acknowledgement, claim
 * timeout and fence retention. Found by {@link java.util.ServiceLoader}; stateless and thread-safe.
 */
// Design notes.
// - One topology: setting the keys of two (a URI and Sentinel nodes, Sentinel and Cluster nodes) is
//   an error, not a silent choice. Every bad value fails in create, naming the key and where its
//   value came from (the settings' origin), so a container fails its start and a tool its command.
// - Trust and key stores are read in create, so a wrong path or password fails naming the key, not
//   the first TLS handshake; their bytes are handed to Jedis.
// - The builder's own checks across arguments (credentials twice, TLS options for a plaintext
//   target) are reported under lockkit.redis.*; Sentinel and Cluster clients ask their nodes while
//   they are built, and a node that does not answer is a BackendUnavailableException naming the keys.
public final class JedisLockProviderFactory implements LockProviderFactory {

    /** The Redis used when no topology key is set. */
    public static final String DEFAULT_URI = "redis://localhost:6379";

    static final String URI = "lockkit.redis.uri";
    static final String KEY_PREFIX = "lockkit.redis.key-prefix";
    static final String TIMEOUT = "lockkit.redis.timeout";
    static final String CONNECT_TIMEOUT = "lockkit.redis.connect-timeout";
    static final String MAX_CONNECTIONS = "lockkit.redis.max-connections";
    static final String CLIENT_NAME = "lockkit.redis.client-name";
    static final String USER = "lockkit.redis.user";
    static final String PASSWORD = "lockkit.redis.password";
    static final String SENTINEL_MASTER = "lockkit.redis.sentinel.master";
    static final String SENTINEL_NODES = "lockkit.redis.sentinel.nodes";
    static final String SENTINEL_USER = "lockkit.redis.sentinel.user";
    static final String SENTINEL_PASSWORD = "lockkit.redis.sentinel.password";
    static final String CLUSTER_NODES = "lockkit.redis.cluster.nodes";
    static final String TLS = "lockkit.redis.tls";
    static final String TRUST_STORE = "lockkit.redis.tls.trust-store";
    static final String TRUST_STORE_PASSWORD = "lockkit.redis.tls.trust-store-password";
    static final String TRUST_STORE_TYPE = "lockkit.redis.tls.trust-store-type";
    static final String KEY_STORE = "lockkit.redis.tls.key-store";
    static final String KEY_STORE_PASSWORD = "lockkit.redis.tls.key-store-password";
    static final String KEY_STORE_TYPE = "lockkit.redis.tls.key-store-type";
    static final String REPLICAS = "lockkit.redis.replica-acknowledgement.replicas";
    static final String REPLICA_TIMEOUT = "lockkit.redis.replica-acknowledgement.timeout";
    static final String CLAIM_TIMEOUT = "lockkit.redis.claim-timeout";
    static final String FENCE_RETENTION = "lockkit.redis.fence-retention";

    /** How long an acquisition waits for its replicas unless {@code lockkit.redis.replica-acknowledgement.timeout} says otherwise. */
    static final Duration DEFAULT_REPLICA_TIMEOUT = Duration.ofMillis(100);

    private static final List<ProviderSetting> SETTINGS = List.of(
            new ProviderSetting(
                    URI,
                    DEFAULT_URI,
                    "The Redis: redis://[[user]:password@]host[:port][/database], or rediss:// for TLS."),
            new ProviderSetting(
                    KEY_PREFIX,
                    JedisLockProvider.DEFAULT_KEY_PREFIX,
                    "The namespace of every key; applications that must not see each other's locks use different"
                            + " prefixes."),
            new ProviderSetting(TIMEOUT, "2s", "How long a command may take, including the wait for a connection."),
            new ProviderSetting(CONNECT_TIMEOUT, "the command timeout", "How long connecting may take."),
            new ProviderSetting(
                    MAX_CONNECTIONS, "16", "The most pooled command connections, each borrowed for one call."),
            new ProviderSetting(
                    CLIENT_NAME,
                    "the factory's client id (<host>/<pid>/<suffix>)",
                    "The connections' name in CLIENT LIST; a fixed name is the same in every instance."),
            new ProviderSetting(
                    USER, null, "The user of the Redis nodes, instead of the URI's (also Sentinel's and Cluster's)."),
            new ProviderSetting(PASSWORD, null, "The password of the Redis nodes."),
            new ProviderSetting(
                    SENTINEL_MASTER, null, "Sentinel: the master's name (with sentinel.nodes, instead of the URI)."),
            new ProviderSetting(SENTINEL_NODES, null, "Sentinel: the Sentinels, as host:port,host:port."),
            new ProviderSetting(SENTINEL_USER, null, "The user of the Sentinels."),
            new ProviderSetting(SENTINEL_PASSWORD, null, "The password of the Sentinels."),
            new ProviderSetting(
                    CLUSTER_NODES, null, "Cluster: seed nodes as host:port,host:port (instead of the URI)."),
            new ProviderSetting(
                    TLS, "false", "TLS to Sentinel and Cluster nodes (a URI says it with its scheme, rediss://)."),
            new ProviderSetting(
                    TRUST_STORE,
                    null,
                    "The trust store file (PKCS12; JKS or PEM certificates by a .jks, .pem or .crt name or the type key);"
                            + " default: the JVM's."),
            new ProviderSetting(TRUST_STORE_PASSWORD, null, "The trust store's password."),
            new ProviderSetting(
                    TRUST_STORE_TYPE,
                    "JKS for a .jks file, PEM for .pem and .crt, else PKCS12",
                    "The trust store's type: PKCS12, JKS or PEM."),
            new ProviderSetting(
                    KEY_STORE,
                    null,
                    "The client certificate and key, for servers that check clients (tls-auth-clients yes)."),
            new ProviderSetting(KEY_STORE_PASSWORD, null, "The key store's password."),
            new ProviderSetting(
                    KEY_STORE_TYPE, "PKCS12, or JKS for a .jks file", "The key store's type: PKCS12 or JKS."),
            new ProviderSetting(
                    REPLICAS, "0", "How many replicas must acknowledge each acquisition (WAIT), else it fails."),
            new ProviderSetting(REPLICA_TIMEOUT, "100ms", "How long an acquisition waits for those acknowledgements."),
            new ProviderSetting(
                    CLAIM_TIMEOUT,
                    "2s",
                    "How long a lock handed to a waiter of another process stays with it until that process claims or"
                            + " renews it, before it passes on."),
            new ProviderSetting(
                    FENCE_RETENTION, "60s", "How long a released lock keeps its last fencing token in Redis."));

    /** For {@link java.util.ServiceLoader}. */
    public JedisLockProviderFactory() {}

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public List<ProviderSetting> settings() {
        return SETTINGS;
    }

    @Override
    public Set<String> uriSchemes() {
        return Set.of("redis", "rediss");
    }

    @Override
    public Optional<String> uriKey() {
        return Optional.of(URI);
    }

    /**
     * @throws IllegalArgumentException naming the key and its source, for a wrong value or keys
     *     that contradict each other (two topologies, a user without a password, a store that
     *     does not open)
     * @throws BackendUnavailableException when the Sentinels or Cluster nodes do not answer
     */
    @Override
    public LockProvider create(ProviderSettings settings, ProviderEnvironment environment) {
        JedisLockProviderBuilder b = JedisLockProvider.builder();
        target(settings, b);
        settings.string(KEY_PREFIX).ifPresent(v -> settings.apply(KEY_PREFIX, () -> b.keyPrefix(v)));
        settings.string(CLIENT_NAME).ifPresent(v -> settings.apply(CLIENT_NAME, () -> b.clientName(v)));
        settings.duration(TIMEOUT).ifPresent(v -> settings.apply(TIMEOUT, () -> b.timeout(v)));
        settings.duration(CONNECT_TIMEOUT)
                .or(() -> settings.duration(TIMEOUT))
                .ifPresent(v -> settings.apply(CONNECT_TIMEOUT, () -> b.connectTimeout(v)));
        settings.integer(MAX_CONNECTIONS).ifPresent(v -> settings.apply(MAX_CONNECTIONS, () -> b.maxConnections(v)));
        settings.duration(CLAIM_TIMEOUT).ifPresent(v -> settings.apply(CLAIM_TIMEOUT, () -> b.claimTimeout(v)));
        settings.duration(FENCE_RETENTION).ifPresent(v -> settings.apply(FENCE_RETENTION, () -> b.fenceRetention(v)));
        Optional<Integer> replicas = settings.integer(REPLICAS);
        Optional<Duration> replicaTimeout = settings.duration(REPLICA_TIMEOUT);
        if (replicas.isPresent() || replicaTimeout.isPresent()) {
            int n = replicas.orElseThrow(() -> settings.invalid(
                    REPLICA_TIMEOUT,
                    settings.string(REPLICA_TIMEOUT).orElse(""),
                    "set " + settings.name(REPLICAS) + " too (how many replicas must acknowledge)"));
            settings.apply(REPLICAS, () -> b.replicaAcknowledgement(n, replicaTimeout.orElse(DEFAULT_REPLICA_TIMEOUT)));
        }
        tls(settings, b);
        environment.threadFactory().ifPresent(b::threadFactory);
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            // Checks across keys (credentials twice, TLS options for a plaintext target).
            throw new IllegalArgumentException(
                    settings.name("lockkit.redis") + ".* (from " + settings.origin() + "): " + e.getMessage(), e);
        } catch (BackendUnavailableException e) {
            // Sentinel and Cluster clients ask their nodes while they are built.
            throw new BackendUnavailableException(
                    null,
                    "lockkit: the lock backend did not answer at application start: " + describeTarget(settings) + ": "
                            + e.getMessage() + ". Fix the setting or start the backend",
                    e);
        }
    }

    /** The keys that name the Redis: Sentinel's, the Cluster's, or the URI (the default one when none is set). */
    @Override
    public String describeTarget(ProviderSettings settings) {
        if (settings.string(SENTINEL_MASTER).isPresent()) {
            return settings.describe(SENTINEL_MASTER, "") + ", " + settings.describe(SENTINEL_NODES, "");
        }
        if (settings.string(CLUSTER_NODES).isPresent()) {
            return settings.describe(CLUSTER_NODES, "");
        }
        return settings.describe(URI, DEFAULT_URI);
    }

    /** The topology: a URI, a Sentinel master, or a Cluster; and the credentials of its nodes. */
    private static void target(ProviderSettings settings, JedisLockProviderBuilder b) {
        Optional<String> uri = settings.string(URI);
        Optional<String> master = settings.string(SENTINEL_MASTER);
        Optional<List<String>> sentinels = settings.list(SENTINEL_NODES);
        Optional<List<String>> cluster = settings.list(CLUSTER_NODES);
        List<String> set = new ArrayList<>();
        uri.ifPresent(v -> set.add(settings.name(URI)));
        if (master.isPresent() || sentinels.isPresent()) {
            set.add(settings.name(SENTINEL_NODES));
        }
        cluster.ifPresent(v -> set.add(settings.name(CLUSTER_NODES)));
        if (set.size() > 1) {
            throw new IllegalArgumentException(String.join(" and ", set) + " (from " + settings.origin()
                    + ") name two Redis topologies; keep one: a URI (standalone), Sentinel or Cluster");
        }
        if (master.isPresent() != sentinels.isPresent()) {
            String missing = master.isPresent() ? SENTINEL_NODES : SENTINEL_MASTER;
            throw new IllegalArgumentException(settings.name(missing) + " is not set in " + settings.origin()
                    + "; Sentinel needs " + settings.name(SENTINEL_MASTER) + " and " + settings.name(SENTINEL_NODES));
        }
        if (master.isPresent() && sentinels.isPresent()) {
            settings.apply(SENTINEL_NODES, () -> b.sentinel(master.get(), sentinels.get()));
        } else if (cluster.isPresent()) {
            settings.apply(CLUSTER_NODES, () -> b.cluster(cluster.get()));
        } else {
            settings.apply(URI, () -> b.uri(uri.orElse(DEFAULT_URI)));
        }
        credentials(settings, USER, PASSWORD)
                .ifPresent(c -> settings.apply(PASSWORD, () -> b.credentials(c.user(), c.password())));
        Optional<Credentials> sentinel = credentials(settings, SENTINEL_USER, SENTINEL_PASSWORD);
        if (sentinel.isPresent() && master.isEmpty()) {
            throw new IllegalArgumentException(settings.name(SENTINEL_PASSWORD) + " (from " + settings.origin()
                    + ") applies to Sentinel only; " + settings.name(SENTINEL_MASTER) + " is not set");
        }
        sentinel.ifPresent(c -> settings.apply(SENTINEL_PASSWORD, () -> b.sentinelCredentials(c.user(), c.password())));
    }

    /** User (may be null) and password when a password is set; a user without a password is an error. */
    private record Credentials(@Nullable String user, String password) {}

    private static Optional<Credentials> credentials(ProviderSettings settings, String userKey, String passwordKey) {
        Optional<String> user = settings.string(userKey);
        Optional<String> password = settings.string(passwordKey);
        if (password.isEmpty()) {
            if (user.isPresent()) {
                throw new IllegalArgumentException(settings.name(userKey) + " (from " + settings.origin()
                        + ") is set but " + settings.name(passwordKey) + " is not");
            }
            return Optional.empty();
        }
        return Optional.of(new Credentials(user.orElse(null), password.get()));
    }

    /** TLS for Sentinel and Cluster ({@code lockkit.redis.tls}), the trust store and the optional key store. */
    private static void tls(ProviderSettings settings, JedisLockProviderBuilder b) {
        settings.bool(TLS).ifPresent(b::tls);
        Optional<String> trustStore = settings.string(TRUST_STORE);
        Optional<String> keyStore = settings.string(KEY_STORE);
        requireStoreFor(settings, trustStore, TRUST_STORE, TRUST_STORE_PASSWORD);
        requireStoreFor(settings, trustStore, TRUST_STORE, TRUST_STORE_TYPE);
        requireStoreFor(settings, keyStore, KEY_STORE, KEY_STORE_PASSWORD);
        requireStoreFor(settings, keyStore, KEY_STORE, KEY_STORE_TYPE);
        if (trustStore.isEmpty() && keyStore.isEmpty()) {
            return;
        }
        KeyStore trust = trustStore
                .map(file -> readStore(settings, TRUST_STORE, TRUST_STORE_PASSWORD, TRUST_STORE_TYPE, file))
                .orElse(null);
        KeyStore key = keyStore.map(file -> readStore(settings, KEY_STORE, KEY_STORE_PASSWORD, KEY_STORE_TYPE, file))
                .orElse(null);
        char[] keyPassword = settings.string(KEY_STORE_PASSWORD).orElse("").toCharArray();
        settings.apply(TRUST_STORE, () -> b.tlsStores(trust, key, keyPassword));
    }

    private static void requireStoreFor(
            ProviderSettings settings, Optional<String> store, String storeKey, String key) {
        if (store.isEmpty() && settings.string(key).isPresent()) {
            throw new IllegalArgumentException(settings.name(key) + " (from " + settings.origin() + ") is set but "
                    + settings.name(storeKey) + " is not; set both or neither");
        }
    }

    /** A key or trust store read now, so a wrong file, type or password fails naming the key. */
    private static KeyStore readStore(
            ProviderSettings settings, String key, String passwordKey, String typeKey, String file) {
        String type = settings.string(typeKey)
                .orElseGet(() -> typeOf(file, key.equals(TRUST_STORE)))
                .toUpperCase(Locale.ROOT);
        char[] password = settings.string(passwordKey).orElse("").toCharArray();
        if (type.equals("PEM") && key.equals(KEY_STORE)) {
            throw settings.invalid(typeKey, type, "a key store is PKCS12 or JKS; PEM is for trust stores");
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(Path.of(file));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(
                    settings.describe(key, "") + ": cannot read the file: " + e.getMessage(), e);
        }
        try {
            if (type.equals("PEM")) {
                return certificates(bytes);
            }
            KeyStore store = KeyStore.getInstance(type);
            store.load(new ByteArrayInputStream(bytes), password);
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(
                    settings.describe(key, "")
                            + (type.equals("PEM")
                                    ? ": not a PEM file of X.509 certificates: "
                                    : ": not a " + type + " store that opens with " + settings.name(passwordKey) + ": ")
                            + e.getMessage(),
                    e);
        }
    }

    /** The store type a file's name suggests; PEM (certificates only) for trust stores alone. */
    private static String typeOf(String file, boolean trustStore) {
        String lower = file.toLowerCase(Locale.ROOT);
        if (lower.endsWith(".jks")) {
            return "JKS";
        }
        return trustStore && (lower.endsWith(".pem") || lower.endsWith(".crt")) ? "PEM" : "PKCS12";
    }

    /** A trust store holding the X.509 certificates of a PEM file (a CA's, usually). */
    private static KeyStore certificates(byte[] pem) throws GeneralSecurityException, IOException {
        Collection<? extends Certificate> certificates =
                CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
        if (certificates.isEmpty()) {
            throw new KeyStoreException("the file holds no certificate");
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        int i = 0;
        for (Certificate certificate : certificates) {
            store.setCertificateEntry("ca-" + i++, certificate);
        }
        return store;
    }

    @Override
    public String toString() {
        return "JedisLockProviderFactory[redis]";
    }
}
