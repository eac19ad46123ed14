package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.quarkus.internal.QuarkusConfigNames;
import io.lockkit.testkit.redis.RedisServer;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("an application that configures quarkus-redis-client's server (quarkus.redis.hosts) and no lockkit server"
        + " locks on that server, with no Dev Services Redis")
class RedisClientHostsTest {

    static final String URI = "test.lockkit.client-hosts.uri";

    /** The application's Redis, as its Redis client is configured. */
    static final String REDIS = SharedRedis.uri(URI, 0);

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class, SharedRedis.class))
            .overrideConfigKey("quarkus.redis.hosts", REDIS)
            .overrideConfigKey("quarkus.lockkit.redis.key-prefix", "client-hosts")
            .setLogRecordPredicate(record -> LogText.of(record).startsWith("lockkit Dev Services"))
            .assertLogRecords(records -> {
                SharedRedis.stop(URI);
                assertThat(records).isEmpty();
            });

    @Inject
    DistributedLockFactory locks;

    @Test
    @DisplayName("lockkit.redis.uri is quarkus.redis.hosts, and a held lock is a key on that server")
    void locksOnTheRedisClientsServer() throws Exception {
        String uri = REDIS;
        assertThat(ConfigProvider.getConfig().getValue("lockkit.redis.uri", String.class))
                .isEqualTo(uri);
        try (LockHandle held = locks.acquire("client:1");
                RedisServer redis = SharedRedis.view(URI)) {
            assertThat(held.fencingToken()).isPositive();
            assertThat(redis.command("KEYS", "client-hosts*")).asString().contains("client:1");
        }
        assertThat(locks.operations().health(Duration.ofSeconds(5)).backend())
                .contains(uri.substring(uri.lastIndexOf(':')));
    }

    @Test
    @DisplayName("lockkit's messages name each key as the application set it: quarkus.redis.hosts, quarkus.lockkit.*")
    void messagesNameTheKeysTheApplicationSet() {
        QuarkusConfigNames names = new QuarkusConfigNames();
        assertThat(names.name("lockkit.redis.uri")).isEqualTo("quarkus.redis.hosts");
        assertThat(names.name("lockkit.redis.key-prefix")).isEqualTo("quarkus.lockkit.redis.key-prefix");
        assertThat(names.name("lockkit.startup")).as("not set").isEqualTo("quarkus.lockkit.startup");
        assertThat(names.name("lockkit.redis.tls")).isEqualTo("quarkus.lockkit.redis.tls.enabled");
    }
}
