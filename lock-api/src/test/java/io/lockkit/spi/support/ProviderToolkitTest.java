package io.lockkit.spi.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.ProviderSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("The provider toolkit: wake-up listeners, argument checks, settings handed to a builder")
class ProviderToolkitTest {

    /** Records what it is told. */
    private static final class Recording implements WakeUpListener {
        final List<String> heard = new CopyOnWriteArrayList<>();

        @Override
        public void released(@Nullable String grantee) {
            heard.add("released " + grantee);
        }

        @Override
        public void missedNotifications() {
            heard.add("missed");
        }
    }

    @Nested
    @DisplayName("WakeUpListeners")
    class Listeners {

        @Test
        @DisplayName("add and remove say when a key gains its first and loses its last listener")
        void firstAndLast() {
            WakeUpListeners listeners = new WakeUpListeners();
            Recording a = new Recording();
            Recording b = new Recording();
            assertThat(listeners.add("k", a)).isTrue();
            assertThat(listeners.add("k", b)).isFalse();
            assertThat(listeners.keys()).containsExactly("k");
            assertThat(listeners.remove("k", a)).isFalse();
            assertThat(listeners.remove("k", a)).as("not there any more").isFalse();
            assertThat(listeners.remove("other", a)).isFalse();
            assertThat(listeners.remove("k", b)).isTrue();
            assertThat(listeners.contains("k")).isFalse();
            assertThat(listeners.size()).isZero();
            assertThatThrownBy(() -> listeners.keys().add("x")).isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        @DisplayName("a release reaches the key's listeners only; a missed notification one key or all")
        void delivery() {
            WakeUpListeners listeners = new WakeUpListeners();
            Recording a = new Recording();
            Recording b = new Recording();
            listeners.add("k1", a);
            listeners.add("k2", b);
            listeners.released("k1", "c:o");
            listeners.released("k2", null);
            listeners.released("nobody", null);
            listeners.missed("k1");
            listeners.missedAll();
            assertThat(a.heard).containsExactly("released c:o", "missed", "missed");
            assertThat(b.heard).containsExactly("released null", "missed");
            listeners.clear();
            listeners.missedAll();
            assertThat(a.heard).hasSize(3);
        }

        @Test
        @DisplayName("a listener added while the last one of its key leaves is never dropped")
        void addRacingTheLastRemoval() throws Exception {
            WakeUpListeners listeners = new WakeUpListeners();
            int rounds = 20_000;
            AtomicInteger dropped = new AtomicInteger();
            for (int round = 0; round < rounds / 1000; round++) {
                CountDownLatch start = new CountDownLatch(1);
                Recording[] leaving = new Recording[1000];
                Recording[] coming = new Recording[1000];
                for (int i = 0; i < 1000; i++) {
                    leaving[i] = new Recording();
                    coming[i] = new Recording();
                    listeners.add("k" + i, leaving[i]);
                }
                Thread remover = new Thread(() -> {
                    awaitQuietly(start);
                    for (int i = 0; i < 1000; i++) {
                        listeners.remove("k" + i, leaving[i]);
                    }
                });
                Thread adder = new Thread(() -> {
                    awaitQuietly(start);
                    for (int i = 0; i < 1000; i++) {
                        listeners.add("k" + i, coming[i]);
                    }
                });
                remover.start();
                adder.start();
                start.countDown();
                remover.join(TimeUnit.SECONDS.toMillis(30));
                adder.join(TimeUnit.SECONDS.toMillis(30));
                for (int i = 0; i < 1000; i++) {
                    listeners.released("k" + i, null);
                    if (coming[i].heard.isEmpty()) {
                        dropped.incrementAndGet();
                    }
                    listeners.remove("k" + i, coming[i]);
                }
            }
            assertThat(dropped).hasValue(0);
            assertThat(listeners.size()).isZero();
        }

        private static void awaitQuietly(CountDownLatch latch) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Nested
    @DisplayName("Arguments")
    class Checks {

        @Test
        @DisplayName("each check returns what it accepts and names the argument and value otherwise")
        void checks() {
            assertThat(Arguments.notNull("x", "name")).isEqualTo("x");
            assertThatThrownBy(() -> Arguments.notNull(null, "client"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("client must not be null");
            assertThat(Arguments.atLeast(0, 0, "replicas")).isZero();
            assertThatThrownBy(() -> Arguments.atLeast(-1, 0, "replicas"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("replicas must not be negative, was -1");
            assertThatThrownBy(() -> Arguments.atLeast(0, 1, "maxConnections"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxConnections must be at least 1, was 0");
            assertThat(Arguments.positive(Duration.ofDays(1), "timeout")).isEqualTo(Duration.ofDays(1));
            assertThatThrownBy(() -> Arguments.positive(Duration.ZERO, "timeout"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("timeout must be positive, was PT0S");
            assertThatThrownBy(() -> Arguments.positive(null, "timeout"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("timeout must be positive, was null");
            assertThatThrownBy(() -> Arguments.positive(Duration.ofDays(1).plusMillis(1), "claimTimeout"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("claimTimeout must be at most one day, was PT24H0.001S");
        }
    }

    @Test
    @DisplayName("ProviderSettings.apply names the key and the origin before a builder's refusal")
    void applyNamesTheKey() {
        ProviderSettings settings = ProviderSettings.of(Map.of("lockkit.x.timeout", "0s"), "the test");
        AtomicInteger ran = new AtomicInteger();
        settings.apply("lockkit.x.timeout", ran::incrementAndGet);
        assertThat(ran).hasValue(1);
        assertThatThrownBy(
                        () -> settings.apply("lockkit.x.timeout", () -> Arguments.positive(Duration.ZERO, "timeout")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lockkit.x.timeout (from the test): timeout must be positive, was PT0S")
                .hasCauseInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> settings.apply("lockkit.x.timeout", () -> {
                    throw new IllegalStateException("not mine to rename");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("not mine to rename");
    }
}
