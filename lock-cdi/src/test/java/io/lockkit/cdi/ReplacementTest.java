package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.inject.se.SeContainer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("an application's own beans replace the library's without ambiguity")
class ReplacementTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @BeforeAll
    static void configure(RedisServer redis) {
        Lockkit.useRedis(redis);
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("a produced DistributedLockFactory is what @Inject and @Locked use")
    void applicationFactoryReplacesOurs(RedisServer redis) {
        SeContainer app = Lockkit.start("replace-factory", LockUser.class, Replacements.FactoryProducer.class);
        try {
            LockUser user = app.select(LockUser.class).get();
            assertThat(user.locks().defaultOptions().watchdogLease()).contains(Replacements.MARK);
            assertThat(app.select(DistributedLockFactory.class).isResolvable()).isTrue();
            LockHandle hold = user.locked("u1");
            assertThat(hold.name()).isEqualTo("user:u1");
            assertThat(Replacements.backend.inspect("user:u1"))
                    .as("held while running, released after")
                    .isEmpty();
            assertThat(redis.command("KEYS", "*user:u1*")).as("Redis untouched").isEqualTo(List.of());
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName("a produced LockProvider is the backend of the library's factory")
    void applicationProviderBacksOurFactory(RedisServer redis) throws Exception {
        SeContainer app = Lockkit.start("replace-provider", LockUser.class, Replacements.ProviderProducer.class);
        try {
            DistributedLockFactory locks =
                    app.select(DistributedLockFactory.class).get();
            try (LockHandle hold = locks.acquire("stock:9")) {
                assertThat(Replacements.backend.inspect("stock:9")).isPresent();
            }
            assertThat(redis.command("KEYS", "*stock:9*")).isEqualTo(List.of());
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName("a qualified factory sits next to the library's @Default one")
    void qualifiedFactoryDoesNotReplaceOurs() throws Exception {
        SeContainer app =
                Lockkit.start("replace-qualified", LockUser.class, Replacements.QualifiedFactoryProducer.class);
        try {
            DistributedLockFactory ours =
                    app.select(DistributedLockFactory.class).get();
            DistributedLockFactory reporting = app.select(DistributedLockFactory.class, new ReportingLiteral())
                    .get();
            assertThat(reporting.defaultOptions().watchdogLease()).contains(Replacements.MARK);
            assertThat(ours.defaultOptions().watchdogLease()).isEmpty();
            try (LockHandle hold = ours.acquire("report")) {
                assertThat(hold.fencingToken()).isPositive();
            }
        } finally {
            app.close();
        }
    }

    static final class ReportingLiteral extends jakarta.enterprise.util.AnnotationLiteral<Replacements.Reporting>
            implements Replacements.Reporting {
        private static final long serialVersionUID = 1L;
    }
}
