package io.lockkit.quarkus;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.List;
import java.util.OptionalInt;

/** lockkit's build-time configuration, {@code quarkus.lockkit.*}: Dev Services. */
@ConfigMapping(prefix = "quarkus.lockkit")
@ConfigRoot(phase = ConfigPhase.BUILD_TIME)
public interface LockkitBuildTimeConfig {

    /** Dev Services: a Redis for dev and test mode. */
    DevServices devservices();

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
         * (the Redis 6.2 binary bundled with lockkit's test kit).
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
