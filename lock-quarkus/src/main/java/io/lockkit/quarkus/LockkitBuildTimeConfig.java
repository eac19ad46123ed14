package io.lockkit.quarkus;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.List;
import java.util.OptionalInt;

/**
 * lockkit's build-time configuration, {@code quarkus.lockkit.*}: Dev Services, and whether the
 * readiness check and the meters are part of the application.
 */
@ConfigMapping(prefix = "quarkus.lockkit")
@ConfigRoot(phase = ConfigPhase.BUILD_TIME)
public interface LockkitBuildTimeConfig {

    /** Dev Services: a Redis for dev and test mode. */
    DevServices devservices();

    /** The {@code lockkit} readiness check. */
    Health health();

    /** lockkit's meters. */
    Metrics metrics();

    /** The readiness check, where {@code quarkus-smallrye-health} is present. */
    interface Health {

        /**
         * Whether the {@code lockkit} check is part of {@code /q/health/ready}; {@code false} leaves it
         * out of the application (the plain {@code lockkit.health.enabled=false}, read at run time,
         * keeps it UP without asking the backend instead).
         */
        @WithDefault("true")
        boolean enabled();
    }

    /** The meters, where Micrometer ({@code quarkus-micrometer}) is present. */
    interface Metrics {

        /**
         * Whether lockkit's meters are bound to the application's {@code MeterRegistry}; {@code false}
         * makes {@code lockkit.metrics.enabled} default to {@code false}.
         */
        @WithDefault("true")
        boolean enabled();
    }

    /**
     * In dev and test mode, with the Redis provider and no Redis configured, lockkit starts a Redis
     * server on a free loopback port, shared across live reloads and stopped when the application
     * exits.
     */
    interface DevServices {

        /** Whether Dev Services starts a Redis (also off when {@code quarkus.devservices.enabled=false}). */
        @WithDefault("true")
        boolean enabled();

        /**
         * Where the server comes from, tried in order: {@code container} (a {@code redis:7-alpine}
         * container, only when Testcontainers is on the build's class path and a container runtime
         * answers), {@code path} (a {@code redis-server} on the {@code PATH}) and {@code embedded}
         * (the Redis 6.2 binary bundled with lockkit's Redis launcher, lock-redis-launcher).
         */
        @WithDefault("container,path,embedded")
        List<String> sources();

        /**
         * A fixed loopback port for the server (a container's published port); by default a free
         * one. A port in use fails the start, unless {@code shared} finds a Redis there.
         */
        OptionalInt port();

        /**
         * With {@code port}: when a Redis already answers on that port (another application's Dev
         * Services started with the same port, say), use it instead of starting one; it is left
         * running when this application exits. Without {@code port} there is nothing to share.
         */
        @WithDefault("true")
        boolean shared();
    }
}
