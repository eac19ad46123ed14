package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.BackendUnavailableException;
import io.lockkit.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The builder's Sentinel, Cluster, credentials and TLS settings check what they are given")
class TopologyBuilderTest {

    @Test
    @DisplayName("Sentinel needs a master name and host:port Sentinels")
    void sentinelArguments() {
        assertThatThrownBy(() -> JedisLockProvider.builder().sentinel(" ", List.of("127.0.0.1:26379")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("masterName");
        assertThatThrownBy(() -> JedisLockProvider.builder().sentinel("m", List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sentinels must name at least one host:port");
        assertThatThrownBy(() -> JedisLockProvider.builder().sentinel("m", List.of("127.0.0.1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sentinels must be host:port addresses")
                .hasMessageContaining("'127.0.0.1'");
        assertThatThrownBy(() -> JedisLockProvider.builder().cluster(List.of("h:0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodes must be host:port addresses");
    }

    @Test
    @DisplayName(
            "credentials need a password; Sentinel credentials need Sentinel; a URI's password and credentials exclude each other")
    void credentials() {
        assertThatThrownBy(() -> JedisLockProvider.builder().credentials("u", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("credentials needs a password");
        assertThatThrownBy(() -> JedisLockProvider.builder()
                        .uri("redis://127.0.0.1:" + RedisFixture.freePort())
                        .sentinelCredentials("u", "p")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sentinelCredentials were given without sentinel");
        assertThatThrownBy(() -> JedisLockProvider.builder()
                        .uri("redis://u:secret@127.0.0.1:" + RedisFixture.freePort())
                        .credentials("u", "other")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("carries a password too")
                .hasMessageNotContaining("secret");
    }

    @Test
    @DisplayName("tls with a plaintext URI is refused, not silently plaintext")
    void tlsNeedsRediss() {
        assertThatThrownBy(() -> JedisLockProvider.builder()
                        .uri("redis://127.0.0.1:" + RedisFixture.freePort())
                        .tls(true)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not rediss://");
    }

    @Test
    @DisplayName("Sentinels or Cluster nodes that do not answer: BackendUnavailableException naming the target")
    void unreachableTopologyIsABackendFailure() {
        String nowhere = "127.0.0.1:" + RedisFixture.freePort();
        assertThatThrownBy(() -> JedisLockProvider.builder()
                        .sentinel("m", List.of(nowhere))
                        .connectTimeout(Duration.ofMillis(300))
                        .build())
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("sentinel master m via");
        assertThatThrownBy(() -> JedisLockProvider.builder()
                        .cluster(List.of(nowhere))
                        .connectTimeout(Duration.ofMillis(300))
                        .build())
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("cluster via");
    }
}
