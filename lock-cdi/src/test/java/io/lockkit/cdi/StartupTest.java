package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.LocalLockProvider;
import io.lockkit.LockException;
import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("misconfiguration fails the application's start, naming the key to fix")
class StartupTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @AfterEach
    void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("an unreachable Redis fails the start, naming lockkit.redis.uri, its value and its source")
    void unreachableRedisFailsTheStart() throws IOException {
        String uri = "redis://127.0.0.1:" + closedPort();
        Lockkit.useConfig(Map.of("lockkit.redis.uri", uri, "lockkit.redis.timeout", "500ms"));
        assertThatThrownBy(() ->
                        Lockkit.start("startup-unreachable", LockUser.class).close())
                .satisfies(e -> assertThat(rootMessages(e))
                        .anySatisfy(m -> assertThat(m)
                                .startsWith("lockkit: the lock backend did not answer at application start")
                                .contains("lockkit.redis.uri = '" + uri + "' (from MicroProfile Config)")
                                .contains("lockkit.startup=lazy")));
    }

    @Test
    @DisplayName("a malformed value fails the start, naming the key and its source")
    void malformedValueFailsTheStart(RedisServer redis) {
        Lockkit.useRedis(redis, "lockkit.redis.timeout", "soon");
        assertThatThrownBy(
                        () -> Lockkit.start("startup-malformed", LockUser.class).close())
                .satisfies(e -> assertThat(rootMessages(e))
                        .anySatisfy(m ->
                                assertThat(m).contains("lockkit.redis.timeout = 'soon' (from MicroProfile Config)")));
        Lockkit.useConfig(Map.of("lockkit.provider", "zookeeper"));
        assertThatThrownBy(
                        () -> Lockkit.start("startup-provider", LockUser.class).close())
                .satisfies(e -> assertThat(rootMessages(e))
                        .anySatisfy(m -> assertThat(m)
                                .contains("lockkit.provider = 'zookeeper'")
                                .contains("no lock provider named 'zookeeper' is on the class path; present: jdbc,"
                                        + " redis")
                                .contains("lockkit.provider=local")));
    }

    @Test
    @DisplayName("lockkit.startup=lazy starts without the backend and fails the first use instead")
    void lazyStartDefersTheCheck() throws IOException {
        Lockkit.useConfig(Map.of(
                "lockkit.redis.uri",
                "redis://127.0.0.1:" + closedPort(),
                "lockkit.redis.timeout",
                "500ms",
                "lockkit.startup",
                "lazy"));
        SeContainer app = Lockkit.start("startup-lazy", LockUser.class);
        try {
            assertThatThrownBy(() -> app.select(LockUser.class).get().locked("u1"))
                    .isInstanceOf(LockException.class);
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName("an unknown lockkit.* key is reported with the key it most likely means")
    void unknownKeyIsReported(RedisServer redis) {
        Lockkit.useRedis(redis, "lockkit.redis.url", "redis://elsewhere:6379");
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                warnings.add(new java.util.logging.SimpleFormatter().formatMessage(record));
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger logger = Logger.getLogger("io.lockkit.cdi.internal");
        logger.addHandler(handler);
        try {
            Lockkit.start("startup-unknown-key", LockUser.class).close();
        } finally {
            logger.removeHandler(handler);
        }
        assertThat(warnings)
                .anySatisfy(w -> assertThat(w)
                        .contains("unknown configuration key lockkit.redis.url")
                        .contains("did you mean lockkit.redis.uri?"));
    }

    @Test
    @DisplayName("two @Default LockProvider beans fail the deployment, naming both")
    void twoProvidersFailTheDeployment() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local"));
        assertThat(Lockkit.failure(() -> Lockkit.start("startup-two-providers", LockUser.class, TwoProviders.class))
                        .messages())
                .anySatisfy(m -> assertThat(m)
                        .contains("several LockProvider beans")
                        .contains("first")
                        .contains("second"));
    }

    /** An application that produces two backends by mistake. */
    @ApplicationScoped
    public static class TwoProviders {
        @Produces
        @Singleton
        LockProvider first() {
            return new LocalLockProvider();
        }

        @Produces
        @Singleton
        @Named("second")
        LockProvider second() {
            return new LocalLockProvider();
        }
    }

    /** The messages of {@code e} and its causes, outermost first. */
    static List<String> rootMessages(Throwable e) {
        List<String> messages = new java.util.ArrayList<>();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return messages;
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
