package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("nested @Locked calls on one thread")
class ReentrancyTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @RegisterExtension
    final Lockkit.PerTest cdi = Lockkit.perTest(NestedCalls.class, NestedCalls.Inner.class);

    @Inject
    NestedCalls calls;

    @Inject
    NestedCalls.Inner inner;

    @Inject
    DistributedLockFactory locks;

    @BeforeAll
    static void configure(RedisServer redis) {
        Lockkit.useRedis(redis);
    }

    @AfterAll
    static void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("a nested call for the same name joins the outer hold: same token, hold count 2, freed after")
    void nestedSameNameJoinsTheOuterHold() {
        List<Long> seen = calls.sameName(7);
        assertThat(seen.get(0)).as("outer hold count before").isEqualTo(1);
        assertThat(seen.get(2)).as("hold count inside the nested call").isEqualTo(2);
        assertThat(seen.get(3)).as("nested token").isEqualTo(seen.get(1));
        assertThat(seen.get(4)).as("outer hold count after").isEqualTo(1);
        assertFree("account:7");
    }

    @Test
    @DisplayName("a nested call for another name takes that lock too, and the innermost hold is current")
    void nestedOtherNameTakesItsOwnLock() {
        assertThat(calls.otherName()).containsExactly("journal");
        assertFree("ledger");
        assertFree("journal");
        assertThat(CurrentLock.handle()).isEmpty();
    }

    @Test
    @DisplayName("an asynchronous nested call keeps the shared lock after the outer method returned")
    void asyncNestedCallKeepsTheLockUntilItCompletes() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = calls.asyncInside(work);
        await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> locks.getLock("job").isLocked());
        work.complete("done");
        assertThat(result.get()).isEqualTo("done");
        assertFree("job");
    }

    @Test
    @DisplayName("a @Locked call while the thread holds the lock through DistributedLock joins that hold")
    void threadHoldIsJoined() {
        DistributedLock account = locks.getLock("account:9");
        account.lock();
        try {
            assertThat(inner.threadHoldCount(9)).isEqualTo(2);
            assertThat(account.getHoldCount()).isEqualTo(1);
        } finally {
            account.unlock();
        }
        assertFree("account:9");
    }

    private void assertFree(String name) {
        Optional<LockHandle> probe = locks.tryAcquire(name);
        assertThat(probe).as("lock %s is free", name).isPresent();
        probe.get().close();
    }
}
