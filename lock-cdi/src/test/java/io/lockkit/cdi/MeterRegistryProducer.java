package io.lockkit.cdi;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The application's MeterRegistry bean, as a Micrometer-using application would produce it. */
public class MeterRegistryProducer {

    @Produces
    @Singleton
    MeterRegistry registry() {
        return new SimpleMeterRegistry();
    }
}
