package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The kit's bounded calls: results, interrupts left alone, stuck calls named by the provider method they wait in. */
class BoundedCallsTest {

    /** A provider whose inspect waits for {@code letGo}. */
    private static LockProvider inspectWaitingFor(CountDownLatch letGo) {
        return new ForwardingLockProvider(new LocalLockProvider()) {
            @Override
            public Optional<LockState> inspect(String name) {
                try {
                    letGo.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.inspect(name);
            }
        };
    }

    @Test
    @DisplayName("a call that returns in time gives its result and leaves the caller's interrupt status as it was")
    void callInTimeReturnsItsResultAndKeepsTheInterrupt() throws Exception {
        Thread.currentThread().interrupt();
        try {
            assertThat(BoundedCalls.within(Duration.ofSeconds(10), "a quick call", () -> 42))
                    .isEqualTo(42);
            assertThat(Thread.currentThread().isInterrupted())
                    .as("the caller's interrupt status")
                    .isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThatThrownBy(() -> BoundedCalls.within(Duration.ofSeconds(10), "a failing call", () -> {
                    throw new IllegalStateException("its own failure");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("its own failure");
    }

    @Test
    @DisplayName("a call that does not return fails naming it and the provider method its thread waits in")
    void stuckCallIsNamed() {
        CountDownLatch letGo = new CountDownLatch(1);
        LockProvider p = inspectWaitingFor(letGo);
        try {
            assertThatThrownBy(() -> BoundedCalls.within(Duration.ofMillis(200), "inspecting x", () -> p.inspect("x")))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageStartingWith(
                            "inspecting x did not return within 0.2 s; it waits in LockProvider.inspect (")
                    .hasCauseInstanceOf(BoundedCalls.StuckThread.class);
        } finally {
            letGo.countDown();
        }
    }

    @Test
    @DisplayName("every call of a batch runs, also calls described alike; only those still running at the bound fail")
    void allCallsRunAndOnlyTheStuckOnesFail() throws Exception {
        CountDownLatch letGo = new CountDownLatch(1);
        LockProvider stuck = inspectWaitingFor(letGo);
        AtomicInteger ran = new AtomicInteger();
        try {
            List<AssertionError> failures = BoundedCalls.allWithin(
                    Duration.ofMillis(300),
                    List.of(
                            new BoundedCalls.Call("closing the provider LocalLockProvider", ran::incrementAndGet),
                            new BoundedCalls.Call("closing the provider LocalLockProvider", ran::incrementAndGet),
                            new BoundedCalls.Call("closing the provider LocalLockProvider", () -> stuck.inspect("y")),
                            new BoundedCalls.Call("a call that throws", () -> {
                                throw new IllegalStateException("ignored: the test closed it already");
                            })));
            assertThat(ran).as("calls described alike that ran").hasValue(2);
            assertThat(failures)
                    .singleElement()
                    .extracting(Throwable::getMessage)
                    .asString()
                    .contains("closing the provider LocalLockProvider did not return within 0.3 s")
                    .contains("LockProvider.inspect");
        } finally {
            letGo.countDown();
        }
    }

    @Test
    @DisplayName("a test's timeout names the provider call its thread was stuck in; other failures pass unchanged")
    void timedOutTestNamesItsCall() {
        TimeoutException timeout = new TimeoutException("someTest() timed out after 120 seconds");
        BoundedCalls.StuckThread stack =
                new BoundedCalls.StuckThread("junit-timeout-thread-1", new StackTraceElement[] {
                    new StackTraceElement("java.util.concurrent.Semaphore", "acquireUninterruptibly", null, 1),
                    new StackTraceElement(LocalLockProvider.class.getName(), "tryAcquire", null, 2),
                    new StackTraceElement("io.lockkit.ProviderLockFactory", "attempt", null, 3),
                    new StackTraceElement("io.lockkit.testkit.FencingContract", "someTest", null, 4)
                });
        timeout.initCause(stack);
        assertThatThrownBy(() -> new StuckTestCalls().handleTestExecutionException(null, timeout))
                .isInstanceOf(AssertionError.class)
                .hasMessage("someTest() timed out after 120 seconds; it waits in LockProvider.tryAcquire ("
                        + LocalLockProvider.class.getName() + ")")
                .hasCause(timeout);
        AssertionError other = new AssertionError("an assertion of the test");
        assertThatThrownBy(() -> new StuckTestCalls().handleTestExecutionException(null, other))
                .isSameAs(other);
    }
}
