package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "A closed provider" ({@link LockContractTest.ClosedProvider}): every call of a closed provider
 * throws LockException.
 */
abstract class ClosedProviderContract extends ContractGroup {

    ClosedProviderContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName(
            "after close, every call of the provider throws LockException naming the lock; closing again is harmless")
    void everyCallAfterCloseThrowsLockException() {
        String name = name();
        String owner = "kitclosed:h1";
        Duration lease = watchdogLease();
        LockProvider p = provider();
        closeAfterTest(p);
        LockProvider.WakeUpListener listener = new LockProvider.WakeUpListener() {
            @Override
            public void released(@Nullable String grantee) {}

            @Override
            public void missedNotifications() {}
        };
        assertThat(p.tryAcquire(new LockProvider.LockRequest(name, owner, lease, Duration.ZERO))
                        .isAcquired())
                .as("an attempt before close")
                .isTrue();
        LockProvider.Subscription subscription = p.subscribe(name, listener);
        Set<Capability> declaredBefore = p.capabilities();
        p.close();
        assertThatCode(p::close).as("closing the provider again").doesNotThrowAnyException();
        assertThatCode(subscription::close)
                .as("closing a subscription made before")
                .doesNotThrowAnyException();
        assertThat(p.capabilities()).as("capabilities after close").isEqualTo(declaredBefore);

        Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
        calls.put("tryAcquire", () -> p.tryAcquire(new LockProvider.LockRequest(name, owner, lease, Duration.ZERO)));
        calls.put(
                "tryAcquire in a wait",
                () -> p.tryAcquire(new LockProvider.LockRequest(name, "kitclosed:t2", lease, lease, 1)));
        calls.put("release", () -> p.release(name, owner));
        calls.put("renew", () -> p.renew(List.of(new LockProvider.Renewal(name, owner, lease))));
        calls.put("subscribe", () -> p.subscribe(name, listener));
        if (has(Capability.FORCE_RELEASE)) {
            calls.put("forceRelease", () -> p.forceRelease(name));
        }
        if (has(Capability.INSPECTION)) {
            calls.put("inspect", () -> p.inspect(name));
        }
        calls.forEach((call, body) -> assertClosedFailure(call, name, catchThrowable(body)));
        // abandon is optional: one a provider does not implement may still do nothing.
        Throwable abandon = catchThrowable(() -> p.abandon(name, "kitclosed:t2", 1));
        if (abandon != null) {
            assertClosedFailure("abandon", name, abandon);
        }
    }

    private void assertClosedFailure(String call, String name, Throwable failure) {
        assertThat(failure)
                .as("what %s of a closed provider threw", call)
                .isInstanceOf(LockException.class)
                .isNotInstanceOf(BackendUnavailableException.class);
        assertThat(((LockException) failure).lockName())
                .as("the lock named by %s's exception", call)
                .isEqualTo(name);
    }
}
