package io.lockkit.quarkus.deployment;

import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.nativeimage.NativeImageResourceBuildItem;
import io.quarkus.deployment.builditem.nativeimage.NativeImageResourcePatternsBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ServiceProviderBuildItem;
import java.util.List;

/**
 * What a native executable must carry that static analysis cannot see: lock-jedis' Lua scripts and
 * lock-jdbc's SQL files (read as resources), the providers lockkit finds with the ServiceLoader, and
 * the resource Jedis reads its version from.
 */
// Design notes.
// - Globs rather than file lists, so a script or dialect added to a provider is covered without
//   touching the extension; NativeImageHintsTest checks that every such resource of the providers'
//   jars matches one.
// - Service providers: lock-cdi picks the provider by lockkit.provider among the LockProviderFactory
//   services on the class path (lock-jedis' redis, lock-jdbc's jdbc, any other); all of them are
//   registered, with their constructors. So are the LockedRuntime services lock-cdi loads
//   (lock-quarkus' VertxLockedRuntime: the event-loop guard and Uni/Multi) and the ConfigNames one
//   (QuarkusConfigNames: messages name quarkus.lockkit.* keys).
// - Building a native executable needs GraalVM or Mandrel; the hints are checked as build items on the
//   JVM, not by a native build.
class NativeImageProcessor {

    /** The resources lockkit's providers read at run time, as globs. */
    static final List<String> RESOURCE_GLOBS = List.of("io/lockkit/jedis/internal/*.lua", "io/lockkit/jdbc/**/*.sql");

    /** Jedis' version, read by its JedisMetaInfo. */
    static final String JEDIS_VERSION_RESOURCE = "redis/clients/jedis/pom.properties";

    /** The service lockkit's providers are found by. */
    static final String PROVIDER_SERVICE = "io.lockkit.spi.LockProviderFactory";

    @BuildStep
    NativeImageResourcePatternsBuildItem resources() {
        return NativeImageResourcePatternsBuildItem.builder()
                .includeGlobs(RESOURCE_GLOBS)
                .build();
    }

    /** Jedis' version resource, when the application has the Redis provider. */
    @BuildStep(onlyIf = RedisProviderPresent.class)
    NativeImageResourceBuildItem jedisVersion() {
        return new NativeImageResourceBuildItem(JEDIS_VERSION_RESOURCE);
    }

    /** The service lock-cdi finds runtimes' say in @Locked by. */
    static final String RUNTIME_SERVICE = "io.lockkit.cdi.spi.LockedRuntime";

    /** The service lock-cdi finds the runtime's names of its keys by (lock-quarkus' quarkus.lockkit.*). */
    static final String NAMES_SERVICE = "io.lockkit.cdi.spi.ConfigNames";

    @BuildStep
    void providers(BuildProducer<ServiceProviderBuildItem> services) {
        services.produce(ServiceProviderBuildItem.allProvidersFromClassPath(PROVIDER_SERVICE));
        services.produce(ServiceProviderBuildItem.allProvidersFromClassPath(RUNTIME_SERVICE));
        services.produce(ServiceProviderBuildItem.allProvidersFromClassPath(NAMES_SERVICE));
    }
}
