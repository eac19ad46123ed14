package io.lockkit.redis.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Starting and stopping servers without a test framework, as Quarkus Dev Services do. */
class RedisLauncherTest {

    @Test
    void theEmbeddedBinaryServesAndStops() throws Exception {
        RedisLauncher.Launch launch = RedisLauncher.builder()
                .sources(RedisLauncher.Source.EMBEDDED)
                .build()
                .launch(List.of("--maxmemory", "3mb"));
        ServerControl control = launch.control();
        try {
            assertThat(launch.source()).isEqualTo(RedisLauncher.Source.EMBEDDED);
            assertThat(launch.passedOver()).isEmpty();
            assertThat(control.pid()).isPresent();
            assertThat(RedisLauncher.version(control.endpoint())).startsWith("6.2");
            try (RespConnection connection = RespConnection.open(control.endpoint(), java.time.Duration.ofSeconds(5))) {
                assertThat(connection.call("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "3145728"));
            }
        } finally {
            control.stop();
        }
        assertThat(control.pid()).isEmpty();
        assertThat(Readiness.pings(control.endpoint(), java.time.Duration.ofMillis(500)))
                .isFalse();
    }

    @Test
    void sourcesWithoutAServerAreSkippedWithTheirReasons() {
        RedisLauncher launcher = RedisLauncher.builder()
                .sources(RedisLauncher.Source.PATH, RedisLauncher.Source.EMBEDDED)
                .searchPath("")
                .build();
        RedisLauncher.Launch launch = launcher.launch(List.of());
        try {
            assertThat(launch.source()).isEqualTo(RedisLauncher.Source.EMBEDDED);
            assertThat(launch.passedOver()).singleElement().asString().startsWith("PATH: ");
        } finally {
            launch.control().stop();
        }
        assertThatThrownBy(() -> RedisLauncher.builder()
                        .sources(RedisLauncher.Source.PATH)
                        .searchPath("")
                        .build()
                        .launch(List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PATH: no redis-server on the search path");
    }

    @Test
    void badSettingsAreRefusedNamingTheArgument() {
        RedisLauncher.Builder builder = RedisLauncher.builder();
        assertThatThrownBy(() -> builder.port(70000)).hasMessageContaining("port");
        assertThatThrownBy(() -> builder.startupTimeout(java.time.Duration.ZERO))
                .hasMessageContaining("startupTimeout");
        assertThatThrownBy(() -> builder.sources()).hasMessageContaining("sources");
        assertThatThrownBy(() -> builder.dockerImage(" ")).hasMessageContaining("dockerImage");
    }
}
