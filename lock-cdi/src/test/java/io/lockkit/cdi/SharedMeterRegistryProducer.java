package io.lockkit.cdi;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** A MeterRegistry bean that outlives the application, as a server-wide registry does. */
public class SharedMeterRegistryProducer {

    static final MeterRegistry SHARED = new SimpleMeterRegistry();

    @Produces
    @Singleton
    MeterRegistry registry() {
        return SHARED;
    }
}
