package io.lockkit.jedis.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.testkit.redis.RedisFixture;
import io.lockkit.testkit.redis.RedisServer;
import io.lockkit.testkit.redis.Source;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisSentinelClient;

@DisplayName("RedisSentinelSetup, the test topology")
@Timeout(120)
class RedisSentinelSetupTest {

    @Test
    @DisplayName("writes through the Sentinel client go to the master and are replicated")
    void writesGoToTheMasterAndAreReplicated() {
        try (RedisSentinelSetup setup = RedisSentinelSetup.start();
                RedisSentinelClient client = setup.newClient()) {
            RedisServer master = setup.master();
            RedisServer replica = setup.replica();
            assertThat(master).isNotEqualTo(replica);
            assertThat(client.getCurrentMaster()).isEqualTo(new HostAndPort(master.host(), master.port()));

            client.set("topology-test", "written");
            assertThat(client.waitReplicas("topology-test", 1, 2000)).isEqualTo(1L);

            assertThat(master.command("GET", "topology-test")).isEqualTo("written");
            assertThat(replica.command("GET", "topology-test")).isEqualTo("written");
            assertThat(NodeSupport.fields(replica.command("INFO", "replication")))
                    .containsEntry("role", "slave")
                    .containsEntry("master_port", Integer.toString(master.port()));
        }
    }

    @Test
    @DisplayName("with only the embedded Redis 6.2, failover promotes the replica and clients follow it")
    void failoverPromotesTheReplicaOnTheEmbeddedBinary() {
        RedisFixture embeddedOnly = RedisFixture.builder()
                .sources(Source.PATH, Source.EMBEDDED)
                .searchPath("")
                .build();
        try (RedisSentinelSetup setup =
                        RedisSentinelSetup.builder().fixture(embeddedOnly).start();
                RedisSentinelClient client = setup.newClient()) {
            assertThat(setup.version()).startsWith("6.2");
            RedisServer oldMaster = setup.master();
            RedisServer oldReplica = setup.replica();
            client.set("before-failover", "1");
            assertThat(client.waitReplicas("before-failover", 1, 2000)).isEqualTo(1L);

            RedisServer newMaster = setup.failover();

            assertThat(newMaster).isEqualTo(oldReplica);
            assertThat(setup.master()).isEqualTo(oldReplica);
            assertThat(setup.replica()).isEqualTo(oldMaster);
            Map<String, String> demoted = NodeSupport.fields(oldMaster.command("INFO", "replication"));
            assertThat(demoted).containsEntry("role", "slave").containsEntry("master_link_status", "up");
            // The client that existed before the failover follows the switch and writes to the new master.
            await().atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .until(() -> "OK".equals(client.set("after-failover", "2")));
            assertThat(newMaster.command("GET", "after-failover")).isEqualTo("2");
            assertThat(newMaster.command("GET", "before-failover")).isEqualTo("1");
        }
    }
}
