package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.function.Supplier;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A container's request threads outlive the application: whatever lockkit put in their ThreadLocals
 * is a leak of the application's class loader, which Payara reports at every undeploy that happens
 * while a {@code @Locked} call runs.
 */
@DisplayName("@Locked keeps nothing in the caller thread's ThreadLocals, during a call or after it")
class ThreadLocalTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @AfterEach
    void clear() {
        Lockkit.clearConfig();
    }

    /** Runs a callback under a lock, nested or not, or skips when the lock is busy. */
    @ApplicationScoped
    public static class Work {
        @Inject
        Inner inner;

        @Locked("tl:{name}")
        public <T> T locked(String name, Supplier<T> inside) {
            return inside.get();
        }

        @Locked("tl:{name}")
        public <T> T nested(String name, Supplier<T> inside) {
            return inner.locked(name + "-inner", inside);
        }

        @Locked(value = "tl:{name}", waitTime = 0, whenBusy = WhenBusy.SKIP)
        public String skipping(String name) {
            return "ran";
        }
    }

    /** The callee of {@link Work#nested}. */
    @ApplicationScoped
    public static class Inner {
        @Locked("tl:{name}")
        public <T> T locked(String name, Supplier<T> inside) {
            return inside.get();
        }
    }

    @Test
    @DisplayName("running, nested, failed, skipped and returned calls leave the thread's ThreadLocals free of lockkit")
    void noLockkitThreadLocals(RedisServer redis) {
        Lockkit.useRedis(redis);
        WeldContainer a = Lockkit.start("thread-locals-a", Work.class, Inner.class);
        WeldContainer b = Lockkit.start("thread-locals-b", Work.class, Inner.class);
        Thread self = Thread.currentThread();
        try {
            Work work = a.select(Work.class).get();
            Work otherInstance = b.select(Work.class).get();
            assertThat(work.locked("a", () -> ThreadLocals.lockkitEntries(self)))
                    .as("inside a running @Locked call")
                    .isEmpty();
            assertThat(work.nested("b", () -> ThreadLocals.lockkitEntries(self)))
                    .as("inside a nested @Locked call")
                    .isEmpty();
            assertThatThrownBy(() -> work.locked("c", () -> {
                        throw new IllegalStateException("failed inside");
                    }))
                    .hasMessage("failed inside");
            assertThat(work.locked("d", () -> otherInstance.skipping("d")))
                    .as("another instance's call of a held name skips")
                    .isNull();
            assertThat(ThreadLocals.lockkitEntries(self))
                    .as("after the calls returned")
                    .isEmpty();
        } finally {
            a.shutdown();
            b.shutdown();
        }
    }
}
