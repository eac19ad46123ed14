package io.lockkit.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineTestKit;

/** Programmatic registration of {@link RedisExtension} and the server's life span. */
class RedisExtensionRegistrationTest {

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.builder()
            .fixture(
                    RedisFixture.builder().sources(Source.PATH, Source.EMBEDDED).build())
            .serverArgs("--maxmemory", "5mb")
            .build();

    @Test
    void configuredServerIsAvailableThroughTheField() {
        RedisServer server = REDIS.server();
        assertThat(server.source()).isIn(Source.PATH, Source.EMBEDDED);
        assertThat(server.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "5242880"));
    }

    @Test
    void serverIsStoppedWhenTheTestClassEnds() {
        Sample.seen = null;
        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(Sample.class))
                .execute()
                .testEvents()
                .assertStatistics(stats -> stats.started(1).succeeded(1));
        assertThat(Sample.seen).isNotNull();
        assertThat(Sample.seen.isRunning()).isFalse();
        assertThat(Sample.seen.pid()).isEmpty();
    }

    /** Run only through the engine test kit above; surefire ignores nested classes. */
    static class Sample {
        static volatile RedisServer seen;

        @RegisterExtension
        static final RedisExtension SAMPLE_REDIS = RedisExtension.builder()
                .fixture(RedisFixture.builder().sources(Source.EMBEDDED).build())
                .build();

        @Test
        void recordsItsServer(RedisServer server) {
            assertThat(server.isRunning()).isTrue();
            seen = server;
        }
    }
}
