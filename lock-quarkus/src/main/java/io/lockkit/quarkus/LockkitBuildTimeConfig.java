package io.lockkit.quarkus;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.List;

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
    }
}
