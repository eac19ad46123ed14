package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.BackendUnavailableException;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.jedis.support.RedisState;
import io.lockkit.jedis.support.TestCertificates;
import io.lockkit.jedis.topology.RedisCluster;
import io.lockkit.jedis.topology.RedisSentinelSetup;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.ProviderSettings;
import io.lockkit.spi.support.ProviderFactories;
import io.lockkit.testkit.LockProviderFactoryContract;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;

@DisplayName(
        "JedisLockProviderFactory: the redis provider from lockkit.redis.* keys (real standalone, Sentinel, Cluster, TLS Redis)")
class JedisLockProviderFactoryTest extends LockProviderFactoryContract {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final LockProviderFactory FACTORY =
            ProviderFactories.named("redis", JedisLockProviderFactoryTest.class.getClassLoader());

    private static ProviderSettings settings(String... keysAndValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            values.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return ProviderSettings.of(values, ORIGIN);
    }

    /** Builds a provider from these settings, takes and releases {@code name} on it, and closes it. */
    private static String lockOnce(String name, ProviderSettings settings, ProviderEnvironment environment)
            throws InterruptedException {
        LockProvider provider = FACTORY.create(settings, environment);
        try (DistributedLockFactory locks = DistributedLockFactory.create(provider)) {
            try (LockHandle hold = locks.acquire(name, LockOptions.noWait())) {
                assertThat(hold.isValid()).isTrue();
            }
            return provider.toString();
        }
    }

    private static String nodes(Set<HostAndPort> addresses) {
        return addresses.stream().map(h -> h.getHost() + ":" + h.getPort()).collect(Collectors.joining(","));
    }

    @Override
    protected String providerName() {
        return "redis";
    }

    @Override
    protected Map<String, String> validSettings() {
        return Map.of("lockkit.redis.uri", REDIS.server().uri());
    }

    @Override
    protected Map<String, String> malformedSettings() {
        return Map.of(
                "lockkit.redis.timeout", "soon",
                "lockkit.redis.max-connections", "0",
                "lockkit.redis.fence-retention", "forever");
    }

    @Test
    @DisplayName("rediss:// in any case names it too; the Sentinel and TLS keys are declared")
    void schemesAndDeclaredKeys() {
        assertThat(FACTORY).isInstanceOf(JedisLockProviderFactory.class);
        assertThat(ProviderFactories.forUri("REDISS://cache:6380", getClass().getClassLoader()))
                .isInstanceOf(JedisLockProviderFactory.class);
        assertThat(FACTORY.uriKey()).contains("lockkit.redis.uri");
        assertThat(FACTORY.settings().stream().map(ProviderSetting::key))
                .contains("lockkit.redis.sentinel.master", "lockkit.redis.tls.key-store-type");
    }

    @Nested
    @DisplayName("standalone")
    class Standalone {

        @Test
        @DisplayName("the URI, key prefix and client name are used; the environment's thread factory makes the threads")
        void locksWithPrefixNameAndThreads(RedisServer redis) throws Exception {
            AtomicInteger made = new AtomicInteger();
            ThreadFactory threads = r -> {
                made.incrementAndGet();
                Thread t = new Thread(r, "factory-test-" + made.get());
                t.setDaemon(true);
                return t;
            };
            ProviderEnvironment environment = new ProviderEnvironment() {
                @Override
                public Optional<ThreadFactory> threadFactory() {
                    return Optional.of(threads);
                }
            };
            String name = "factory-standalone";
            LockProvider provider = FACTORY.create(
                    settings(
                            "lockkit.redis.uri", redis.uri(),
                            "lockkit.redis.key-prefix", "factory-app",
                            "lockkit.redis.client-name", "factory-client"),
                    environment);
            try (DistributedLockFactory locks = DistributedLockFactory.create(provider)) {
                LockHandle held = locks.acquire(name, LockOptions.noWait());
                assertThat(redis.command("EXISTS", RedisState.lockKey("factory-app", name)))
                        .isEqualTo(1L);
                String clients = String.valueOf(redis.command("CLIENT", "LIST"));
                assertThat(clients).contains("name=factory-client");
                // A wait subscribes: the pub/sub thread comes from the environment's factory.
                CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                    try (LockHandle h = locks.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(20)))) {
                        return h.isValid();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                });
                await().atMost(Duration.ofSeconds(20)).until(() -> made.get() > 0);
                held.close();
                assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
            }
        }

        @Test
        @DisplayName("user and password apart from the URI authenticate; a user alone, or credentials twice, fail")
        void credentials(RedisServer redis) throws Exception {
            redis.command("ACL", "SETUSER", "factory-user", "on", ">factory-pw", "+@all", "~*", "&*");
            lockOnce(
                    "factory-credentials",
                    settings(
                            "lockkit.redis.uri", redis.uri(),
                            "lockkit.redis.user", "factory-user",
                            "lockkit.redis.password", "factory-pw"),
                    ProviderEnvironment.none());
            assertThatThrownBy(() -> FACTORY.create(
                            settings("lockkit.redis.uri", redis.uri(), "lockkit.redis.user", "factory-user"),
                            ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lockkit.redis.user (from " + ORIGIN + ") is set but lockkit.redis.password is not");
            String withPassword = redis.uri().replace("redis://", "redis://factory-user:factory-pw@");
            assertThatThrownBy(() -> FACTORY.create(
                            settings(
                                    "lockkit.redis.uri", withPassword,
                                    "lockkit.redis.user", "factory-user",
                                    "lockkit.redis.password", "factory-pw"),
                            ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("lockkit.redis.* (from " + ORIGIN + "): ")
                    .hasMessageContaining("credentials were given and the uri carries a password too")
                    .hasMessageNotContaining("factory-pw");
        }

        @Test
        @DisplayName("fence-retention sets how long a released lock keeps its token")
        void fenceRetention(RedisServer redis) throws Exception {
            String name = "factory-fence-retention";
            lockOnce(
                    name,
                    settings(
                            "lockkit.redis.uri", redis.uri(),
                            "lockkit.redis.fence-retention", "5s",
                            "lockkit.redis.claim-timeout", "1500ms"),
                    ProviderEnvironment.none());
            long ttl = (Long) redis.command("PTTL", RedisState.lockKey(name));
            assertThat(ttl).as("ms the released lock's hash keeps its token").isBetween(1L, 5000L);
        }

        @Test
        @DisplayName("a malformed or contradicting value fails naming the key, its value and where it came from")
        void badValuesNameTheKey(RedisServer redis) {
            assertThatThrownBy(() -> FACTORY.create(
                            settings("lockkit.redis.uri", redis.uri(), "lockkit.redis.timeout", "soon"),
                            ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("lockkit.redis.timeout = 'soon' (from " + ORIGIN + ")");
            assertThatThrownBy(() -> FACTORY.create(
                            settings("lockkit.redis.uri", redis.uri(), "lockkit.redis.max-connections", "0"),
                            ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("lockkit.redis.max-connections (from " + ORIGIN + "): ")
                    .hasMessageContaining("maxConnections");
            assertThatThrownBy(() -> FACTORY.create(
                            settings(
                                    "lockkit.redis.uri",
                                    redis.uri(),
                                    "lockkit.redis.replica-acknowledgement.timeout",
                                    "1s"),
                            ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockkit.redis.replica-acknowledgement.timeout = '1s'")
                    .hasMessageContaining("set lockkit.redis.replica-acknowledgement.replicas too");
            assertThatThrownBy(() -> FACTORY.create(
                            settings("lockkit.redis.uri", "http://cache:6379"), ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("lockkit.redis.uri (from " + ORIGIN + "): ");
            assertThatThrownBy(() -> FACTORY.create(
                            settings("lockkit.redis.uri", redis.uri(), "lockkit.redis.cluster.nodes", "127.0.0.1:7000"),
                            ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockkit.redis.uri and lockkit.redis.cluster.nodes")
                    .hasMessageContaining("keep one");
            assertThatThrownBy(() -> FACTORY.create(
                            settings("lockkit.redis.uri", redis.uri(), "lockkit.redis.sentinel.password", "x"),
                            ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(
                            "lockkit.redis.sentinel.password (from " + ORIGIN + ") applies to Sentinel only");
            assertThatThrownBy(() -> FACTORY.create(
                            settings("lockkit.redis.uri", redis.uri(), "lockkit.redis.tls.trust-store-password", "x"),
                            ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockkit.redis.tls.trust-store-password (from " + ORIGIN
                            + ") is set but lockkit.redis.tls.trust-store is not");
        }

        @Test
        @DisplayName("describeTarget names the URI without its password, or the default one")
        void describeTarget() {
            assertThat(FACTORY.describeTarget(settings("lockkit.redis.uri", "redis://u:secret@cache:6379")))
                    .isEqualTo("lockkit.redis.uri = 'redis://u:***@cache:6379' (from " + ORIGIN + ")");
            assertThat(FACTORY.describeTarget(settings()))
                    .isEqualTo("lockkit.redis.uri (not set in " + ORIGIN + "; default 'redis://localhost:6379')");
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("Sentinel")
    class Sentinel {

        private RedisSentinelSetup sentinel;

        @BeforeAll
        void start() {
            sentinel = RedisSentinelSetup.start();
            sentinel.sentinel()
                    .command("ACL", "SETUSER", "factory-sentinel", "on", ">sentinel-pw", "+@all", "~*", "&*");
        }

        @AfterAll
        void stop() {
            if (sentinel != null) {
                sentinel.close();
            }
        }

        @Test
        @DisplayName("sentinel.master and sentinel.nodes lock on the master, with the Sentinels' credentials")
        void locksOnTheMaster() throws Exception {
            String name = "factory-sentinel";
            String description = lockOnce(
                    name,
                    settings(
                            "lockkit.redis.sentinel.master", sentinel.masterName(),
                            "lockkit.redis.sentinel.nodes", nodes(sentinel.sentinels()),
                            "lockkit.redis.sentinel.user", "factory-sentinel",
                            "lockkit.redis.sentinel.password", "sentinel-pw",
                            "lockkit.redis.replica-acknowledgement.replicas", "1",
                            "lockkit.redis.replica-acknowledgement.timeout", "2s"),
                    ProviderEnvironment.none());
            assertThat(description).contains("sentinel master " + sentinel.masterName());
            assertThat(sentinel.master().command("EXISTS", RedisState.lockKey(name)))
                    .isEqualTo(1L);
        }

        @Test
        @DisplayName(
                "a master without Sentinels is refused; Sentinels that do not answer are a backend failure naming the keys")
        void misconfiguredSentinel() {
            assertThatThrownBy(() -> FACTORY.create(
                            settings("lockkit.redis.sentinel.master", sentinel.masterName()),
                            ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lockkit.redis.sentinel.nodes is not set in " + ORIGIN
                            + "; Sentinel needs lockkit.redis.sentinel.master and lockkit.redis.sentinel.nodes");
            String nowhere = "127.0.0.1:" + RedisFixture.freePort();
            assertThatThrownBy(() -> FACTORY.create(
                            settings(
                                    "lockkit.redis.sentinel.master",
                                    sentinel.masterName(),
                                    "lockkit.redis.sentinel.nodes",
                                    nowhere,
                                    "lockkit.redis.connect-timeout",
                                    "300ms"),
                            ProviderEnvironment.none()))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageStartingWith("lockkit: the lock backend did not answer at application start: ")
                    .hasMessageContaining("lockkit.redis.sentinel.nodes = '" + nowhere + "' (from " + ORIGIN + ")");
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("Cluster")
    class Cluster {

        private RedisCluster cluster;

        @BeforeAll
        void start() {
            cluster = RedisCluster.start();
        }

        @AfterAll
        void stop() {
            if (cluster != null) {
                cluster.close();
            }
        }

        @Test
        @DisplayName("cluster.nodes locks on the Cluster; a node that is not host:port is refused naming the key")
        void locksOnTheCluster() throws Exception {
            String name = "factory-cluster";
            String description = lockOnce(
                    name, settings("lockkit.redis.cluster.nodes", nodes(cluster.seeds())), ProviderEnvironment.none());
            assertThat(description).contains("cluster via");
            assertThatThrownBy(() -> FACTORY.create(
                            settings("lockkit.redis.cluster.nodes", "cache"), ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockkit.redis.cluster.nodes (from " + ORIGIN + ")")
                    .hasMessageContaining("host:port");
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("TLS")
    class Tls {

        private TestCertificates certificates;
        private RedisServer tlsRedis;
        private int tlsPort;
        private Path clientStore;
        private Path dir;

        @BeforeAll
        void start(@TempDir Path dir) throws Exception {
            this.dir = dir;
            Optional<TestCertificates> made = TestCertificates.create(dir);
            assumeTrue(made.isPresent(), "no openssl on the PATH to make a test certificate");
            certificates = made.get();
            Optional<Path> client = TestCertificates.clientKeyStore(dir, certificates.trustStorePassword());
            assumeTrue(client.isPresent(), "openssl could not make a client certificate");
            clientStore = client.get();
            tlsPort = RedisFixture.freePort();
            try {
                tlsRedis = RedisFixture.builder()
                        .sources(Source.PATH, Source.EMBEDDED)
                        .build()
                        .startLocal(
                                RedisFixture.freePort(),
                                List.of(
                                        "--tls-port", Integer.toString(tlsPort),
                                        "--tls-cert-file",
                                                certificates.certificate().toString(),
                                        "--tls-key-file", certificates.key().toString(),
                                        "--tls-ca-cert-file",
                                                dir.resolve("ca.pem").toString(),
                                        "--tls-auth-clients", "yes"));
            } catch (IllegalStateException e) {
                assumeTrue(false, "this redis-server does not run TLS (built without it?): " + e.getMessage());
            }
        }

        @AfterAll
        void stop() {
            if (tlsRedis != null) {
                tlsRedis.close();
            }
        }

        private ProviderSettings tls(String... more) {
            Map<String, String> values = new HashMap<>();
            values.put("lockkit.redis.uri", "rediss://127.0.0.1:" + tlsPort);
            values.put(
                    "lockkit.redis.tls.trust-store", certificates.trustStore().toString());
            values.put("lockkit.redis.tls.trust-store-password", new String(certificates.trustStorePassword()));
            values.put("lockkit.redis.tls.key-store", clientStore.toString());
            values.put("lockkit.redis.tls.key-store-password", new String(certificates.trustStorePassword()));
            for (int i = 0; i < more.length; i += 2) {
                values.put(more[i], more[i + 1]);
            }
            return ProviderSettings.of(values, ORIGIN);
        }

        @Test
        @DisplayName("rediss:// with the trust store and a client key store locks over TLS")
        void locksOverTls() throws Exception {
            assertThat(lockOnce("factory-tls", tls(), ProviderEnvironment.none()))
                    .contains("rediss://127.0.0.1:" + tlsPort);
        }

        @Test
        @DisplayName("a PEM certificate file (.crt) is a trust store of its certificates")
        void pemTrustStore() throws Exception {
            Map<String, String> values = new HashMap<>();
            values.put("lockkit.redis.uri", "rediss://127.0.0.1:" + tlsPort);
            values.put(
                    "lockkit.redis.tls.trust-store", certificates.certificate().toString());
            values.put("lockkit.redis.tls.key-store", clientStore.toString());
            values.put("lockkit.redis.tls.key-store-password", new String(certificates.trustStorePassword()));
            assertThat(lockOnce("factory-tls-pem", ProviderSettings.of(values, ORIGIN), ProviderEnvironment.none()))
                    .contains("rediss://127.0.0.1:" + tlsPort);
            values.put("lockkit.redis.tls.trust-store", certificates.key().toString());
            values.put("lockkit.redis.tls.trust-store-type", "pem");
            assertThatThrownBy(() -> FACTORY.create(ProviderSettings.of(values, ORIGIN), ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockkit.redis.tls.trust-store = '" + certificates.key() + "'")
                    .hasMessageContaining("not a PEM file of X.509 certificates");
        }

        @Test
        @DisplayName("a wrong store password or a missing store file fails naming the key")
        void badStores() {
            assertThatThrownBy(() -> FACTORY.create(
                            tls("lockkit.redis.tls.trust-store-password", "wrong"), ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockkit.redis.tls.trust-store = '" + certificates.trustStore() + "'")
                    .hasMessageContaining("lockkit.redis.tls.trust-store-password");
            Path missing = dir.resolve("nothing.p12");
            assertThatThrownBy(() -> FACTORY.create(
                            tls("lockkit.redis.tls.key-store", missing.toString()), ProviderEnvironment.none()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockkit.redis.tls.key-store = '" + missing + "'")
                    .hasMessageContaining("cannot read the file");
        }
    }
}
