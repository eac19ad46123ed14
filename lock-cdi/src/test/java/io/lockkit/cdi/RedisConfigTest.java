package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.jedis.ReplicaAcknowledgementException;
import io.lockkit.jedis.support.RedisState;
import io.lockkit.jedis.support.TestCertificates;
import io.lockkit.jedis.topology.RedisCluster;
import io.lockkit.jedis.topology.RedisSentinelSetup;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import jakarta.enterprise.inject.se.SeContainer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code lockkit.redis.*} keys beyond the URI, each against a real Redis of that kind: Sentinel,
 * Cluster, credentials, TLS with a trust store and a key store, replica acknowledgement, fence
 * retention; and what a wrong or misspelt key does at application start.
 */
@DisplayName("Redis topology, credentials and TLS from configuration keys (CDI SE, real Sentinel, Cluster, TLS Redis)")
class RedisConfigTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @AfterEach
    void clear() {
        Lockkit.clearConfig();
    }

    /** Starts an application with this configuration, takes and releases a lock, and returns what it saw. */
    private static String lockOnce(String id, Map<String, String> config, Runnable whileHeld) throws Exception {
        Lockkit.useConfig(config);
        SeContainer app = Lockkit.start(id, LockUser.class);
        try {
            DistributedLockFactory locks =
                    app.select(DistributedLockFactory.class).get();
            try (LockHandle hold = locks.acquire(id)) {
                assertThat(hold.isValid()).isTrue();
                whileHeld.run();
            }
            // The backend as its provider describes itself, through the API (a client proxy need not
            // forward toString(): OpenWebBeans' does not).
            return locks.operations().health(Duration.ofSeconds(10)).backend();
        } finally {
            app.close();
        }
    }

    private static List<String> messages(Throwable e) {
        return StartupTest.rootMessages(e);
    }

    private static String nodes(java.util.Set<redis.clients.jedis.HostAndPort> addresses) {
        return addresses.stream().map(h -> h.getHost() + ":" + h.getPort()).collect(Collectors.joining(","));
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("Sentinel")
    class Sentinel {

        private RedisSentinelSetup sentinel;

        @BeforeAll
        void start() {
            sentinel = RedisSentinelSetup.start();
            // Users of their own, so the credentials are checked (the default user stays open for the fixture).
            sentinel.sentinel()
                    .command("ACL", "SETUSER", "lockkit-sentinel", "on", ">sentinel-secret", "+@all", "~*", "&*");
            for (RedisServer node : sentinel.dataNodes()) {
                node.command("ACL", "SETUSER", "lockkit-app", "on", ">app-secret", "+@all", "~*", "&*");
            }
        }

        @AfterAll
        void stop() {
            if (sentinel != null) {
                sentinel.close();
            }
        }

        private Map<String, String> config(String... more) {
            Map<String, String> config = new HashMap<>();
            config.put("lockkit.redis.sentinel.master", sentinel.masterName());
            config.put("lockkit.redis.sentinel.nodes", nodes(sentinel.sentinels()));
            for (int i = 0; i < more.length; i += 2) {
                config.put(more[i], more[i + 1]);
            }
            return config;
        }

        @Test
        @DisplayName(
                "sentinel.master and sentinel.nodes lock on the master the Sentinels name, with both sets of credentials")
        void locksOnTheMaster() throws Exception {
            String name = "sentinel-master";
            String description = lockOnce(
                    name,
                    config(
                            "lockkit.redis.user", "lockkit-app",
                            "lockkit.redis.password", "app-secret",
                            "lockkit.redis.sentinel.user", "lockkit-sentinel",
                            "lockkit.redis.sentinel.password", "sentinel-secret"),
                    () -> assertThat(RedisState.of(sentinel.master()).keys())
                            .as("keys on the master while the lock is held")
                            .contains(RedisState.lockKey(name)));
            assertThat(description).contains("sentinel master " + sentinel.masterName());
        }

        @Test
        @DisplayName("a wrong Sentinel password fails the start, naming the Sentinel keys")
        void wrongSentinelPasswordFailsTheStart() {
            Lockkit.useConfig(config(
                    "lockkit.redis.sentinel.user", "lockkit-sentinel", "lockkit.redis.sentinel.password", "wrong"));
            assertThatThrownBy(() -> Lockkit.start("sentinel-wrong-password", LockUser.class)
                            .close())
                    .satisfies(e -> assertThat(messages(e))
                            .anySatisfy(m -> assertThat(m).contains("lockkit.redis.sentinel.master")));
        }

        @Test
        @DisplayName("a wrong data-node password fails the start")
        void wrongPasswordFailsTheStart() {
            Lockkit.useConfig(config("lockkit.redis.user", "lockkit-app", "lockkit.redis.password", "wrong"));
            assertThatThrownBy(() -> Lockkit.start("sentinel-wrong-app-password", LockUser.class)
                            .close())
                    .satisfies(e -> assertThat(messages(e))
                            .anySatisfy(m -> assertThat(m)
                                    .startsWith("lockkit: the lock backend did not answer at application start")
                                    .contains("lockkit.redis.sentinel.nodes")));
        }

        @Test
        @DisplayName("replica-acknowledgement.replicas=1 locks with the one replica; 2 cannot be acknowledged")
        void replicaAcknowledgement() throws Exception {
            lockOnce(
                    "sentinel-ack-1",
                    config(
                            "lockkit.redis.replica-acknowledgement.replicas", "1",
                            "lockkit.redis.replica-acknowledgement.timeout", "2s"),
                    () -> {});
            Lockkit.useConfig(config(
                    "lockkit.redis.replica-acknowledgement.replicas", "2",
                    "lockkit.redis.replica-acknowledgement.timeout", "200ms",
                    "lockkit.startup", "lazy"));
            SeContainer app = Lockkit.start("sentinel-ack-2", LockUser.class);
            try {
                DistributedLockFactory locks =
                        app.select(DistributedLockFactory.class).get();
                assertThatThrownBy(() -> locks.acquire("sentinel-ack-2"))
                        .isInstanceOf(ReplicaAcknowledgementException.class);
            } finally {
                app.close();
            }
        }

        @Test
        @DisplayName("a misspelt sentinel key fails the start with the key it most likely means")
        void typoIsNamed() {
            Map<String, String> config = new HashMap<>();
            config.put("lockkit.redis.sentinel.master", sentinel.masterName());
            config.put("lockkit.redis.sentinel.node", nodes(sentinel.sentinels()));
            Lockkit.useConfig(config);
            assertThatThrownBy(
                            () -> Lockkit.start("sentinel-typo", LockUser.class).close())
                    .satisfies(
                            e -> assertThat(messages(e))
                                    .anySatisfy(
                                            m -> assertThat(m)
                                                    .contains("lockkit.redis.sentinel.nodes is not set")
                                                    .contains(
                                                            "lockkit.redis.sentinel.node (did you mean lockkit.redis.sentinel.nodes?)")));
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
        @DisplayName("cluster.nodes locks on the master that owns the name's slot")
        void locksOnTheSlotsMaster() throws Exception {
            String name = "cluster-lock";
            String key = RedisState.lockKey(name);
            String description = lockOnce(
                    name,
                    Map.of("lockkit.redis.cluster.nodes", nodes(cluster.seeds())),
                    () -> assertThat(cluster.masterFor(key).command("EXISTS", key))
                            .as("the lock key on its slot's master")
                            .isEqualTo(1L));
            assertThat(description).contains("cluster via");
        }

        @Test
        @DisplayName("cluster.nodes and uri together fail the start, naming both")
        void twoTopologiesFailTheStart() {
            Lockkit.useConfig(Map.of(
                    "lockkit.redis.cluster.nodes", nodes(cluster.seeds()),
                    "lockkit.redis.uri", REDIS.server().uri()));
            assertThatThrownBy(() ->
                            Lockkit.start("cluster-and-uri", LockUser.class).close())
                    .satisfies(e -> assertThat(messages(e))
                            .anySatisfy(m -> assertThat(m)
                                    .contains("lockkit.redis.uri and lockkit.redis.cluster.nodes")
                                    .contains("keep one")));
        }

        @Test
        @DisplayName("a node that is not host:port fails the start, naming the key")
        void badNodeFailsTheStart() {
            Lockkit.useConfig(Map.of("lockkit.redis.cluster.nodes", "127.0.0.1"));
            assertThatThrownBy(() ->
                            Lockkit.start("cluster-bad-node", LockUser.class).close())
                    .satisfies(e -> assertThat(messages(e))
                            .anySatisfy(m -> assertThat(m)
                                    .contains("lockkit.redis.cluster.nodes (from MicroProfile Config)")
                                    .contains("host:port")));
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

        @BeforeAll
        void start(@TempDir Path dir) throws Exception {
            Optional<TestCertificates> made = TestCertificates.create(dir);
            assumeTrue(made.isPresent(), "no openssl on the PATH to make a test certificate");
            certificates = made.get();
            Optional<Path> client = TestCertificates.clientKeyStore(dir, certificates.trustStorePassword());
            assumeTrue(client.isPresent(), "openssl could not make a client certificate");
            clientStore = client.get();
            // Clients must show a certificate signed by the test CA (the server's own, self-signed).
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

        private Map<String, String> config(String... more) {
            Map<String, String> config = new HashMap<>();
            config.put("lockkit.redis.uri", "rediss://127.0.0.1:" + tlsPort);
            config.put(
                    "lockkit.redis.tls.trust-store", certificates.trustStore().toString());
            config.put("lockkit.redis.tls.trust-store-password", new String(certificates.trustStorePassword()));
            config.put("lockkit.redis.tls.key-store", clientStore.toString());
            config.put("lockkit.redis.tls.key-store-password", new String(certificates.trustStorePassword()));
            for (int i = 0; i < more.length; i += 2) {
                config.put(more[i], more[i + 1]);
            }
            return config;
        }

        @Test
        @DisplayName("rediss:// with the trust store and a client key store locks over TLS")
        void locksOverTls() throws Exception {
            String description = lockOnce("tls-lock", config(), () -> {});
            assertThat(description).contains("rediss://127.0.0.1:" + tlsPort);
        }

        @Test
        @DisplayName("without the key store the server refuses the client: the start fails naming the URI")
        void withoutKeyStoreTheStartFails() {
            Map<String, String> config = config();
            config.remove("lockkit.redis.tls.key-store");
            config.remove("lockkit.redis.tls.key-store-password");
            config.put("lockkit.redis.timeout", "1s");
            Lockkit.useConfig(config);
            assertThatThrownBy(() ->
                            Lockkit.start("tls-no-key-store", LockUser.class).close())
                    .satisfies(e -> assertThat(messages(e))
                            .anySatisfy(m -> assertThat(m)
                                    .startsWith("lockkit: the lock backend did not answer at application start")
                                    .contains("lockkit.redis.uri = 'rediss://127.0.0.1:" + tlsPort + "'")));
        }

        @Test
        @DisplayName("a wrong trust store password fails the start, naming the trust store keys")
        void wrongTrustStorePassword() {
            Lockkit.useConfig(config("lockkit.redis.tls.trust-store-password", "wrong"));
            assertThatThrownBy(() ->
                            Lockkit.start("tls-wrong-password", LockUser.class).close())
                    .satisfies(e -> assertThat(messages(e))
                            .anySatisfy(m -> assertThat(m)
                                    .contains("lockkit.redis.tls.trust-store = '" + certificates.trustStore() + "'")
                                    .contains("lockkit.redis.tls.trust-store-password")));
        }

        @Test
        @DisplayName("a trust store that is not there fails the start, naming the key")
        void missingTrustStore(@TempDir Path empty) {
            Path missing = empty.resolve("nothing.p12");
            Lockkit.useConfig(config("lockkit.redis.tls.trust-store", missing.toString()));
            assertThatThrownBy(() ->
                            Lockkit.start("tls-missing-store", LockUser.class).close())
                    .satisfies(e -> assertThat(messages(e))
                            .anySatisfy(m -> assertThat(m)
                                    .contains("lockkit.redis.tls.trust-store = '" + missing + "'")
                                    .contains("cannot read the file")));
            assertThat(Files.exists(missing)).isFalse();
        }
    }

    @Nested
    @DisplayName("standalone")
    class Standalone {

        @Test
        @DisplayName("fence-retention sets how long a released lock keeps its token; claim-timeout is read and checked")
        void fenceRetentionAndClaimTimeout() throws Exception {
            RedisServer redis = REDIS.server();
            String name = "fence-retention";
            lockOnce(
                    name,
                    Map.of(
                            "lockkit.redis.uri", redis.uri(),
                            "lockkit.redis.fence-retention", "5s",
                            "lockkit.redis.claim-timeout", "1500ms"),
                    () -> {});
            long ttl = (Long) redis.command("PTTL", RedisState.lockKey(name));
            assertThat(ttl).as("ms the released lock's hash keeps its token").isBetween(1L, 5000L);
            Lockkit.useConfig(Map.of("lockkit.redis.uri", redis.uri(), "lockkit.redis.claim-timeout", "soon"));
            assertThatThrownBy(() ->
                            Lockkit.start("claim-timeout-bad", LockUser.class).close())
                    .satisfies(e -> assertThat(messages(e))
                            .anySatisfy(m -> assertThat(m).contains("lockkit.redis.claim-timeout = 'soon'")));
        }

        @Test
        @DisplayName("user and password apart from the URI authenticate; both at once fail the start")
        void credentialsApartFromTheUri() throws Exception {
            RedisServer redis = REDIS.server();
            redis.command("ACL", "SETUSER", "lockkit-standalone", "on", ">pw", "+@all", "~*", "&*");
            lockOnce(
                    "standalone-credentials",
                    Map.of(
                            "lockkit.redis.uri", redis.uri(),
                            "lockkit.redis.user", "lockkit-standalone",
                            "lockkit.redis.password", "pw"),
                    () -> {});
            String withPassword = redis.uri().replace("redis://", "redis://lockkit-standalone:pw@");
            Lockkit.useConfig(Map.of(
                    "lockkit.redis.uri", withPassword,
                    "lockkit.redis.user", "lockkit-standalone",
                    "lockkit.redis.password", "pw"));
            assertThatThrownBy(() -> Lockkit.start("standalone-credentials-twice", LockUser.class)
                            .close())
                    .satisfies(e -> assertThat(messages(e))
                            .anySatisfy(m -> assertThat(m)
                                    .contains("credentials were given and the uri carries a password too")
                                    .doesNotContain(":pw@")));
            Lockkit.useConfig(Map.of("lockkit.redis.uri", redis.uri(), "lockkit.redis.user", "lockkit-standalone"));
            assertThatThrownBy(() -> Lockkit.start("standalone-user-only", LockUser.class)
                            .close())
                    .satisfies(e -> assertThat(messages(e))
                            .anySatisfy(m -> assertThat(m)
                                    .contains("lockkit.redis.user (from MicroProfile Config) is set but"
                                            + " lockkit.redis.password is not")));
        }
    }
}
