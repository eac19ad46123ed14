package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.micrometer.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.se.SeContainer;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("lock metrics in the application's MeterRegistry bean (CDI SE, Micrometer present)")
class MetricsTest {

    @AfterEach
    void clear() {
        Lockkit.clearConfig();
    }

    @Test
    @DisplayName("a @Locked call shows in the lockkit meters of the application's MeterRegistry")
    void lockedCallIsMeasured() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local"));
        SeContainer app = Lockkit.start("metrics", LockUser.class, MeterRegistryProducer.class);
        try {
            MeterRegistry registry = app.select(MeterRegistry.class).get();
            app.select(LockUser.class).get().locked("u1");
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tag(LockMetrics.OUTCOME_TAG, "acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(LockMetrics.HELD).timer().count()).isEqualTo(1);
            assertThat(registry.get(LockMetrics.HOLDS_ACTIVE).gauge().value()).isZero();
            assertThat(registry.get(LockMetrics.LOST).meters()).hasSize(4);
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName("shutting the application down removes lockkit's meters from a registry that outlives it")
    void shutdownRemovesTheMetersFromARegistryThatOutlivesTheApplication() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local"));
        MeterRegistry shared = SharedMeterRegistryProducer.SHARED;
        SeContainer app = Lockkit.start("metrics-shared", LockUser.class, SharedMeterRegistryProducer.class);
        try {
            app.select(LockUser.class).get().locked("u1");
            assertThat(lockkitMeters(shared)).as("while the application runs").isNotEmpty();
        } finally {
            app.close();
        }
        assertThat(lockkitMeters(shared)).as("after shutdown").isEmpty();
    }

    @Test
    @DisplayName("lockkit.metrics.enabled=false leaves lockkit's meters out of the application's MeterRegistry")
    void metricsSwitchedOff() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local", "lockkit.metrics.enabled", "false"));
        SeContainer app = Lockkit.start("metrics-off", LockUser.class, MeterRegistryProducer.class);
        try {
            MeterRegistry registry = app.select(MeterRegistry.class).get();
            assertThat(app.select(LockUser.class).get().locked("u1").name()).isEqualTo("user:u1");
            assertThat(lockkitMeters(registry)).isEmpty();
        } finally {
            app.close();
        }
    }

    private static java.util.List<String> lockkitMeters(MeterRegistry registry) {
        return registry.getMeters().stream()
                .map(m -> m.getId().getName())
                .filter(n -> n.startsWith("lockkit."))
                .toList();
    }

    @Test
    @DisplayName(
            "a MeterRegistry bean that fails while the meters are created neither stops the application nor a @Locked call")
    void brokenRegistryDoesNotStopLocking() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local"));
        SeContainer app = Lockkit.start("metrics-broken", LockUser.class, BrokenMeterRegistryProducer.class);
        try {
            assertThat(app.select(LockUser.class).get().locked("u1").name()).isEqualTo("user:u1");
            assertThat(app.select(LockUser.class).get().locked("u1").fencingToken())
                    .as("and again")
                    .isPositive();
        } finally {
            app.close();
        }
    }

    @Test
    @DisplayName("without a MeterRegistry bean the factory works and reports nowhere")
    void noRegistryBeanNoMetrics() {
        Lockkit.useConfig(Map.of("lockkit.provider", "local"));
        SeContainer app = Lockkit.start("metrics-none", LockUser.class);
        try {
            assertThat(app.select(LockUser.class).get().locked("u1").name()).isEqualTo("user:u1");
            assertThat(app.select(MeterRegistry.class).isUnsatisfied()).isTrue();
        } finally {
            app.close();
        }
    }
}
