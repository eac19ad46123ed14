package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLock;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Fair lock" ({@link LockContractTest.FairLock}): waiters of every client are served in arrival
 * order, and the fair lock is an ordinary reentrant lock of its name otherwise (that a newcomer
 * does not barge past waiters is judged through the SPI, in {@link FairQueueContract}, where the
 * moment a released name is free can be held still). Skipped, visibly, unless the provider declares {@link Capability#FAIR_QUEUE}.
 */
abstract class FairLockContract extends ContractGroup {

    FairLockContract(LockContractTest kit) {
        super(kit);
    }

    @BeforeEach
    void fairQueueDeclared() {
        assume(Capability.FAIR_QUEUE);
    }

    @Test
    @DisplayName("waiters of three clients get the lock in the order they asked")
    void waitersAreServedInArrivalOrder() throws Exception {
        String name = name();
        DistributedLock holder = steadyClient().getFairLock(name);
        holder.lock();
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch served = new CountDownLatch(3);
        for (String who : List.of("first", "second", "third")) {
            WaitWatch watch = new WaitWatch(provider());
            DistributedLock lock = clientOver(watch).getFairLock(name);
            start(who, () -> {
                try {
                    if (lock.tryLock(scaled(Duration.ofSeconds(60)), null)) {
                        order.add(who);
                        lock.unlock();
                        served.countDown(); // after the unlock: the test ends, and closes the clients, on the last one
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            await(who + " waiting").atMost(scaled(Duration.ofSeconds(20))).until(watch::queued);
        }
        holder.unlock();

        assertThat(served.await(scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS))
                .as("every waiter served")
                .isTrue();
        assertThat(order).containsExactly("first", "second", "third");
    }

    @Test
    @DisplayName("the fair lock is reentrant and excludes the plain lock of its name")
    void theFairLockIsAnOrdinaryLockOtherwise() {
        String name = name();
        DistributedLock fair = steadyClient().getFairLock(name);
        fair.lock();
        fair.lock();
        assertThat(fair.getHoldCount()).isEqualTo(2);
        assertThat(steadyClient().getLock(name).tryLock()).isFalse();
        fair.unlock();
        fair.unlock();
        assertThat(fair.isHeldByCurrentThread()).isFalse();
        DistributedLock plain = steadyClient().getLock(name);
        assertThat(plain.tryLock()).isTrue();
        plain.unlock();
    }
}
