package io.lockkit.jedis.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.RedisClusterClient;

@DisplayName("RedisCluster, the test topology")
@Timeout(120)
class RedisClusterTest {

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @DisplayName("three masters split the 16384 slots, and keys land on each of them")
    void keysLandOnEveryMaster() {
        List<RedisServer> masters = cluster.masters();
        assertThat(masters).hasSize(3).containsExactlyInAnyOrderElementsOf(cluster.nodes());
        Map<RedisServer, String> keyPerMaster = keyPerMaster(masters);
        try (RedisClusterClient client = cluster.newClient()) {
            keyPerMaster.forEach((master, key) -> client.set(key, "on " + master.port()));
        }
        keyPerMaster.forEach((master, key) -> {
            assertThat(master.command("GET", key)).isEqualTo("on " + master.port());
            assertThat(cluster.slotOf(key))
                    .isEqualTo(Math.toIntExact((Long) master.command("CLUSTER", "KEYSLOT", key)));
        });
        assertThat(cluster.masterFor(0)).isEqualTo(masters.get(0));
        assertThat(cluster.masterFor(RedisCluster.SLOTS - 1)).isEqualTo(masters.get(2));
    }

    @Test
    @DisplayName("a script call through RedisClusterClient runs on the master of its key's slot")
    void scriptCallsRunOnTheKeysMaster() {
        String script = "redis.call('incr', KEYS[1]); return redis.call('incr', KEYS[2])";
        try (RedisClusterClient client = cluster.newClient()) {
            for (Map.Entry<RedisServer, String> e :
                    keyPerMaster(cluster.masters()).entrySet()) {
                String key = "{" + e.getValue() + "}";
                Object reply = client.eval(script, List.of(key + ":a", key + ":b"), List.of());
                assertThat(reply).isEqualTo(1L);
                assertThat(e.getKey().command("GET", key + ":a")).isEqualTo("1");
            }
        }
    }

    @Test
    @DisplayName("seeds name every node, and masterFor rejects slots outside the 16384")
    void seedsAndSlotBounds() {
        assertThat(cluster.seeds())
                .hasSize(3)
                .allSatisfy(s -> assertThat(s.getHost()).isEqualTo("127.0.0.1"));
        assertThat(cluster.seeds().stream().map(s -> s.getPort()).collect(Collectors.toSet()))
                .isEqualTo(cluster.nodes().stream().map(RedisServer::port).collect(Collectors.toSet()));
        assertThatThrownBy(() -> cluster.masterFor(RedisCluster.SLOTS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slot");
    }

    @Test
    @DisplayName("with only the embedded Redis 6.2, a cluster with replicas forms and replicates writes")
    void embeddedBinaryFormsAClusterWithReplicas() {
        RedisFixture embeddedOnly = RedisFixture.builder()
                .sources(Source.PATH, Source.EMBEDDED)
                .searchPath("")
                .build();
        try (RedisCluster withReplicas = RedisCluster.builder()
                        .fixture(embeddedOnly)
                        .replicasPerMaster(1)
                        .start();
                RedisClusterClient client = withReplicas.newClient()) {
            assertThat(withReplicas.version()).startsWith("6.2");
            assertThat(withReplicas.nodes()).hasSize(6);
            assertThat(withReplicas.masters()).hasSize(3);
            assertThat(withReplicas.replicas()).hasSize(3);
            Map<RedisServer, String> keys = keyPerMaster(withReplicas, withReplicas.masters());
            keys.values().forEach(key -> client.set(key, "v"));
            for (Map.Entry<RedisServer, String> e : keys.entrySet()) {
                assertThat((Long) e.getKey().command("WAIT", "1", "2000")).isEqualTo(1L);
                String masterId = withReplicas.nodeId(e.getKey());
                RedisServer replica = withReplicas.replicas().stream()
                        .filter(r -> NodeSupport.fields(r.command("INFO", "replication"))
                                .get("master_port")
                                .equals(Integer.toString(e.getKey().port())))
                        .findFirst()
                        .orElseThrow();
                assertThat(replica.command("CLUSTER", "NODES").toString()).contains("slave " + masterId);
                assertThat((Long) replica.command("DBSIZE")).isEqualTo(1L);
            }
        }
    }

    @Test
    @DisplayName("with redis-server from the PATH, a one-master cluster forms and serves every slot")
    void pathBinaryFormsAOneMasterCluster() {
        RedisFixture pathOnly = RedisFixture.builder().sources(Source.PATH).build();
        assumeTrue(hasBinary(pathOnly), "no redis-server on the PATH");
        try (RedisCluster single =
                RedisCluster.builder().fixture(pathOnly).masters(1).start()) {
            assertThat(single.masters()).containsExactlyElementsOf(single.nodes());
            assertThat(single.masterFor(12345)).isEqualTo(single.nodes().get(0));
        }
    }

    private static boolean hasBinary(RedisFixture fixture) {
        try {
            fixture.redisServerBinary();
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    private static Map<RedisServer, String> keyPerMaster(List<RedisServer> masters) {
        return keyPerMaster(cluster, masters);
    }

    /** For each master a key whose slot it serves, found by trying key-0, key-1, ... */
    private static Map<RedisServer, String> keyPerMaster(RedisCluster c, List<RedisServer> masters) {
        Map<RedisServer, String> keys = new LinkedHashMap<>();
        Map<Integer, RedisServer> bySlotCache = new HashMap<>();
        for (int i = 0; keys.size() < masters.size() && i < 1000; i++) {
            String key = "topology-test-" + i;
            int slot = c.slotOf(key);
            RedisServer master = bySlotCache.computeIfAbsent(slot, c::masterFor);
            keys.putIfAbsent(master, key);
        }
        assertThat(keys.keySet()).isEqualTo(Set.copyOf(masters));
        return keys;
    }
}
