package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.Release;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Fair queue" ({@link LockContractTest.FairQueue}): fair claims are admitted in arrival order
 * across clients, and a waiter that stops asking loses its place within a bound. Judged through
 * the SPI alone; skipped, visibly, unless the provider declares {@link Capability#FAIR_QUEUE}.
 */
abstract class FairQueueContract extends ContractGroup {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Claim FAIR = Claim.EXCLUSIVE.fairly();

    private LockProvider backend;
    private String name;

    FairQueueContract(LockContractTest kit) {
        super(kit);
    }

    @BeforeEach
    void fairQueueDeclared() {
        assume(Capability.FAIR_QUEUE);
        backend = closeAfterTest(provider());
        name = name();
    }

    private boolean admits(String owner, Claim claim, Duration wait) {
        return backend.tryAcquire(new LockRequest(name, owner, LEASE, wait, 0, claim))
                .isAcquired();
    }

    private Duration waiting() {
        return scaled(Duration.ofSeconds(20));
    }

    @Test
    @DisplayName("a fair claim queues behind every earlier live waiter, even when the name is free")
    void aFairClaimQueuesBehindEarlierWaiters() {
        assertThat(admits("h:t1", FAIR, waiting())).isTrue();
        assertThat(admits("a:t1", FAIR, waiting())).as("a queues first").isFalse();
        assertThat(admits("b:t1", FAIR, waiting())).as("b queues second").isFalse();
        backend.release(name, "h:t1");

        assertThat(admits("c:t1", FAIR, Duration.ZERO))
                .as("a newcomer to a free name with a queue")
                .isFalse();
        assertThat(admits("b:t1", FAIR, waiting())).as("b, behind a").isFalse();
        assertThat(admits("a:t1", FAIR, waiting())).isTrue();
        backend.release(name, "a:t1");
        assertThat(admits("b:t1", FAIR, waiting())).isTrue();
    }

    @Test
    @DisplayName("a waiter that stops asking loses its place within a bound; one that abandons loses it at once")
    void aDeadWaitersPlaceLapses() {
        assertThat(admits("h:t1", FAIR, waiting())).isTrue();
        admits("dead:t1", FAIR, Duration.ofMillis(300)); // then never asks again
        admits("gone:t1", FAIR, waiting());
        backend.abandon(name, "gone:t1", 0);
        assertThat(admits("b:t1", FAIR, waiting())).isFalse();
        backend.release(name, "h:t1");

        await("b admitted once the silent waiter's place lapsed")
                .atMost(scaled(Duration.ofSeconds(20)))
                .until(() -> admits("b:t1", FAIR, waiting()));
    }

    @Test
    @DisplayName("a fair semaphore serves a waiter for three permits before later waiters for one")
    void aFairSemaphoreServesALargeWaiterFirst() {
        assume(Capability.SHARED_HOLDS);
        assertThat(admits("a:h1", Claim.shared(2, 3), Duration.ZERO)).isTrue();
        assertThat(admits("big:h1", Claim.shared(3, 3).fairly(), waiting())).isFalse();

        assertThat(admits("small:h1", Claim.shared(1, 3).fairly(), waiting()))
                .as("one permit is free, but the waiter for three came first")
                .isFalse();
        backend.release(name, "a:h1");
        assertThat(admits("big:h1", Claim.shared(3, 3).fairly(), waiting())).isTrue();
        backend.release(name, "big:h1");
        assertThat(admits("small:h1", Claim.shared(1, 3).fairly(), waiting())).isTrue();
    }

    @Test
    @DisplayName("a release serves the earliest waiter of another client before a later waiter of the releasing client")
    void theReleasingClientsWaiterDoesNotJumpTheQueue() {
        assertThat(admits("a:t1", FAIR, waiting())).isTrue();
        assertThat(admits("b:t1", FAIR, waiting())).as("b queues first").isFalse();
        assertThat(admits("a:t2", FAIR, waiting()))
                .as("a's second thread queues after b")
                .isFalse();
        Release r = backend.release(name, "a:t1");
        if (r.granted() || r.grantee() != null) {
            assertThat(r.grantee()).as("the one the release hands the lock to").isEqualTo("b:t1");
        }

        assertThat(admits("a:t2", FAIR, waiting()))
                .as("a's later waiter, while b waits before it")
                .isFalse();
        assertThat(admits("b:t1", FAIR, waiting())).isTrue();
        backend.release(name, "b:t1");
        assertThat(admits("a:t2", FAIR, waiting())).isTrue();
    }
}
