package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The operator's view ({@link DistributedLockFactory#operations()}) and the no-wait asynchronous try. */
class LockOperationsTest {

    private final LocalLockProvider backend = new LocalLockProvider();
    private final DistributedLockFactory locks = DistributedLockFactory.create(backend);
    private final DistributedLockFactory other = DistributedLockFactory.create(backend.newClient());

    @AfterEach
    void close() {
        locks.close();
        other.close();
    }

    @Test
    void operationsInspectListAndForceReleaseALockOfAnotherClient() throws Exception {
        LockHandle held = other.acquire("orders:1");
        LockOperations ops = locks.operations();

        Optional<LockInfo> info = ops.inspect("orders:1");
        assertThat(info).as("the holder the backend reports").isPresent();
        assertThat(info.get().clientId()).isEqualTo(other.clientId());
        assertThat(info.get().fencingToken()).isEqualTo(held.fencingToken());
        try (Stream<LockInfo> listed = ops.locks("orders:")) {
            assertThat(listed.map(LockInfo::name).toList()).isEqualTo(List.of("orders:1"));
        }

        assertThat(ops.forceRelease("orders:1")).as("was held").isTrue();
        assertThat(ops.inspect("orders:1")).as("free after the force release").isEmpty();
        assertThat(ops.forceRelease("orders:1")).as("held no more").isFalse();
        assertThat(locks.tryAcquire("orders:1")).as("free for this client").isPresent();
    }

    @Test
    void operationsIsOneViewMadeOncePerFactory() {
        LockOperations ops = locks.operations();

        assertThat(locks.operations()).as("the same view on every call").isSameAs(ops);
        assertThat(other.operations()).as("each factory its own").isNotSameAs(ops);
    }

    @Test
    void operationsTellAHolderOfThisFactoryOfItsForcedLoss() throws Exception {
        LockHandle held = locks.acquire("orders:2");

        assertThat(locks.operations().forceRelease("orders:2")).isTrue();

        assertThat(held.lost()).as("the holder is told at once").isDone();
        assertThat(held.isValid()).isFalse();
    }

    @Test
    void operationsReportTheFactoryHealth() {
        HealthReport report = locks.operations().health(Duration.ofSeconds(10));

        assertThat(report.isUp()).as(report.toString()).isTrue();
    }

    @Test
    void operationsRejectBadInputNamingTheArgument() {
        LockOperations ops = locks.operations();

        assertThatThrownBy(() -> ops.inspect("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ops.forceRelease(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ops.locks(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix");
        assertThatThrownBy(() -> ops.health(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("probeTimeout");
    }

    @Test
    void operationsOfAClosedFactoryFailWithLockException() {
        LockOperations ops = locks.operations();
        locks.close();

        assertThatThrownBy(() -> ops.inspect("orders:3")).isInstanceOf(LockException.class);
        assertThatThrownBy(() -> ops.forceRelease("orders:3")).isInstanceOf(LockException.class);
        assertThatThrownBy(() -> ops.locks("")).isInstanceOf(LockException.class);
    }

    @Test
    void tryAcquireAsyncOfANameTakesAFreeLockAndDoesNotWaitForABusyOne() throws Exception {
        // The default options wait forever: a busy lock answered at all shows the call did not wait.
        Optional<LockHandle> first =
                locks.tryAcquireAsync("orders:4").toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(first).as("free").isPresent();

        Optional<LockHandle> second =
                other.tryAcquireAsync("orders:4").toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(second).as("busy: empty at once").isEmpty();

        first.get().close();
        assertThat(other.tryAcquireAsync("orders:4").toCompletableFuture().get(30, TimeUnit.SECONDS))
                .as("free again")
                .isPresent();
    }

    @Test
    void tryAcquireAsyncOfANameRejectsABadName() {
        assertThatThrownBy(() -> locks.tryAcquireAsync("")).isInstanceOf(IllegalArgumentException.class);
    }
}
