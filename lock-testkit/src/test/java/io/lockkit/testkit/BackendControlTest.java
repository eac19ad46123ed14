package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedClass;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.LockProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** The kit's one backend-control hook, and the outage group that needs it. */
class BackendControlTest {

    @Test
    @DisplayName("without backend control, every outage test is skipped by an assumption that names the hook")
    void outageTestsAreSkippedWithoutBackendControl() {
        Events tests = EngineTestKit.engine("junit-jupiter")
                .selectors(selectNestedClass(List.of(NoControlKit.class), LockContractTest.Outage.class))
                .execute()
                .testEvents();
        assertThat(tests.started().count()).as("outage tests started").isEqualTo(3);
        assertThat(tests.aborted().count()).as("outage tests skipped").isEqualTo(3);
        assertThat(tests.aborted().stream()
                        .map(e -> e.getRequiredPayload(TestExecutionResult.class)
                                .getThrowable()
                                .orElseThrow()
                                .getMessage()))
                .allSatisfy(m -> assertThat(m).contains("backendControl()"));
    }

    @Test
    @DisplayName("starting without the holds runs the start, then the forgetting; the plain start only the start")
    void startForgettingHoldsStartsThenForgets() {
        List<String> calls = new CopyOnWriteArrayList<>();
        BackendControl control =
                BackendControl.of(() -> calls.add("stop"), () -> calls.add("start"), () -> calls.add("forget"));
        control.stop();
        control.start();
        control.startForgettingHolds();
        assertThat(calls).containsExactly("stop", "start", "start", "forget");

        calls.clear();
        BackendControl forgetful = BackendControl.of(() -> calls.add("stop"), () -> calls.add("start"));
        forgetful.stop();
        forgetful.startForgettingHolds();
        assertThat(calls).containsExactly("stop", "start");
    }

    @Test
    @DisplayName("a null action is rejected naming the argument")
    @SuppressWarnings("NullAway") // passes null on purpose
    void nullActionsAreRejected() {
        Runnable nothing = () -> {};
        assertThatThrownBy(() -> BackendControl.of(null, nothing))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("stop ");
        assertThatThrownBy(() -> BackendControl.of(nothing, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("start ");
        assertThatThrownBy(() -> BackendControl.of(nothing, nothing, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("forgetHolds ");
    }

    /** A kit over the in-JVM provider that offers no backend control. */
    static class NoControlKit extends LockContractTest {
        private final LocalLockProvider backend = new LocalLockProvider();

        @Override
        protected LockProvider newProvider() {
            return backend.newClient();
        }
    }
}
