package io.lockkit.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lockkit.redis.launcher.RedisLauncher;
import java.net.ConnectException;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/** Each source the fixture can hand a server out from, and the order in which it tries them. */
class RedisFixtureSourcesTest {

    @Test
    void embeddedBinaryIsUsedWhenThePathLookupMisses() throws Exception {
        // Leaving EXPLICIT_URI and TESTCONTAINERS out keeps a LOCKKIT_REDIS_URI or a Docker engine from interfering.
        RedisFixture fixture = RedisFixture.builder()
                .sources(Source.PATH, Source.EMBEDDED)
                .searchPath("")
                .build();
        int port;
        try (RedisServer server = fixture.start()) {
            port = server.port();
            assertThat(server.source()).isEqualTo(Source.EMBEDDED);
            assertThat(server.version()).startsWith("6.2");
            assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + port);
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.command("SET", "greeting", "hello wörld")).isEqualTo("OK");
            assertThat(server.command("GET", "greeting")).isEqualTo("hello wörld");
            assertThat(server.isRunning()).isTrue();
        }
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
    }

    @Test
    void redisServerOnThePathIsUsedWhenPresent() {
        assumeTrue(RedisLauncher.onPath(System.getenv("PATH")).isPresent(), "no redis-server on the PATH");
        try (RedisServer server =
                RedisFixture.builder().sources(Source.PATH).build().start()) {
            assertThat(server.source()).isEqualTo(Source.PATH);
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.version()).isNotEqualTo("unknown");
        }
    }

    @Test
    void explicitUriIsUsedAsGivenAndNeverStopped() {
        try (RedisServer underlying =
                RedisFixture.builder().sources(Source.EMBEDDED).build().start()) {
            underlying.command("SET", "owner", "underlying");

            RedisServer explicit =
                    RedisFixture.builder().explicitUri(underlying.uri()).build().start();
            assertThat(explicit.source()).isEqualTo(Source.EXPLICIT_URI);
            assertThat(explicit.uri()).isEqualTo(underlying.uri());
            assertThat(explicit.port()).isEqualTo(underlying.port());
            assertThat(explicit.version()).isEqualTo(underlying.version());
            assertThat(explicit.pid()).isEmpty();
            assertThat(explicit.backendControl()).as("the kit's outage control").isEmpty();
            assertThat(explicit.command("GET", "owner")).isEqualTo("underlying");
            assertThatThrownBy(explicit::restart)
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("EXPLICIT_URI");

            explicit.stop();

            assertThat(explicit.isRunning()).isFalse();
            assertThatThrownBy(() -> explicit.command("PING")).isInstanceOf(IllegalStateException.class);
            assertThat(underlying.isRunning()).isTrue();
            assertThat(underlying.command("GET", "owner")).isEqualTo("underlying");
        }
    }

    @Test
    void explicitUriComesFromTheSystemPropertyUnlessTheSourceIsLeftOut() {
        assumeTrue(
                System.getenv(RedisFixture.URI_ENVIRONMENT_VARIABLE) == null,
                RedisFixture.URI_ENVIRONMENT_VARIABLE + " is set and takes precedence over the system property");
        try (RedisServer underlying =
                RedisFixture.builder().sources(Source.EMBEDDED).build().start()) {
            String previous = System.setProperty(RedisFixture.URI_SYSTEM_PROPERTY, underlying.uri());
            try {
                try (RedisServer viaProperty =
                        RedisFixture.builder().sources(Source.values()).build().start()) {
                    assertThat(viaProperty.source()).isEqualTo(Source.EXPLICIT_URI);
                    assertThat(viaProperty.port()).isEqualTo(underlying.port());
                }
                try (RedisServer own = RedisFixture.builder()
                        .sources(Source.PATH, Source.EMBEDDED)
                        .build()
                        .start()) {
                    assertThat(own.source()).isNotEqualTo(Source.EXPLICIT_URI);
                    assertThat(own.port()).isNotEqualTo(underlying.port());
                }
            } finally {
                if (previous == null) {
                    System.clearProperty(RedisFixture.URI_SYSTEM_PROPERTY);
                } else {
                    System.setProperty(RedisFixture.URI_SYSTEM_PROPERTY, previous);
                }
            }
        }
    }

    @Test
    void explicitUriRejectsExtraServerArguments() {
        RedisFixture fixture =
                RedisFixture.builder().explicitUri("redis://127.0.0.1:1").build();
        assertThatThrownBy(() -> fixture.start("--cluster-enabled", "yes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--cluster-enabled")
                .hasMessageContaining("Source.EXPLICIT_URI");
    }

    @Test
    void testcontainersIsUsedWhenADockerEngineAnswers() {
        assumeTrue(RedisLauncher.whyNoContainer() == null, "no Docker engine answers");
        try (RedisServer server =
                RedisFixture.builder().sources(Source.TESTCONTAINERS).build().start()) {
            assertThat(server.source()).isEqualTo(Source.TESTCONTAINERS);
            assertThat(server.version()).startsWith("7.");
            assertThat(server.command("SET", "k", "v")).isEqualTo("OK");
            int port = server.port();
            server.restart();
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void unavailableSourcesAreReportedWithTheirReasons() {
        RedisFixture fixture =
                RedisFixture.builder().sources(Source.PATH).searchPath("").build();
        assertThatThrownBy(fixture::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PATH: no redis-server on the search path");
        assertThatThrownBy(fixture::redisServerBinary).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void binaryComesFromThePathBeforeTheEmbeddedOne() {
        RedisFixture embeddedOnly = RedisFixture.builder()
                .sources(Source.PATH, Source.EMBEDDED)
                .searchPath("")
                .build();
        assertThat(embeddedOnly.redisServerBinary()).isExecutable();
        assertThat(embeddedOnly.redisServerBinary()).isEqualTo(embeddedOnly.redisServerBinary());

        var onPath = RedisLauncher.onPath(System.getenv("PATH"));
        assumeTrue(onPath.isPresent(), "no redis-server on the PATH");
        assertThat(RedisFixture.builder()
                        .sources(Source.PATH, Source.EMBEDDED)
                        .build()
                        .redisServerBinary())
                .isEqualTo(onPath.get());
    }

    @Test
    void sourcesNamedByTheEnvironmentAreParsedInOrderAndUnknownOnesRefused() {
        assertThat(Sources.parse(" embedded , path,EMBEDDED", "test")).containsExactly(Source.EMBEDDED, Source.PATH);
        assertThat(Sources.parse("explicit-uri", "test")).containsExactly(Source.EXPLICIT_URI);
        assertThatThrownBy(() -> Sources.parse("embeded", "environment variable X"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("environment variable X")
                .hasMessageContaining("'embeded'")
                .hasMessageContaining("EMBEDDED");
    }

    @Test
    void builderRejectsBadOptionsAtTheSetter() {
        RedisFixture.Builder builder = RedisFixture.builder();
        assertThatThrownBy(() -> builder.sources())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sources");
        assertThatThrownBy(() -> builder.sources(Source.PATH, Source.PATH))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PATH");
        assertThatThrownBy(() -> builder.explicitUri("http://example.org"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("uri");
        assertThatThrownBy(() -> builder.explicitUri("rediss://127.0.0.1:6380"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TLS");
        assertThatThrownBy(() -> builder.startupTimeout(java.time.Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("startupTimeout");
        assertThatThrownBy(() -> builder.port(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port");
        assertThatThrownBy(() -> builder.port(65536)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFixedPortIsListenedOnAndTheSourcesPassedOverAreTold() {
        int port = RedisFixture.freePort();
        try (RedisServer server = RedisFixture.builder()
                .sources(Source.PATH, Source.EMBEDDED)
                .searchPath("")
                .port(port)
                .announce(false)
                .build()
                .start()) {
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.source()).isEqualTo(Source.EMBEDDED);
            assertThat(server.passedOver()).singleElement().asString().startsWith("PATH: ");
        }
        try (RedisServer first =
                RedisFixture.builder().sources(Source.EMBEDDED).build().start()) {
            assertThat(first.passedOver()).as("the first source served").isEmpty();
        }
    }
}
