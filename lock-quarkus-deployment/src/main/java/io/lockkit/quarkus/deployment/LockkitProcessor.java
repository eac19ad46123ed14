package io.lockkit.quarkus.deployment;

import io.lockkit.quarkus.LockkitBuildTimeConfig;
import io.lockkit.quarkus.internal.DataSourceCheck;
import io.lockkit.quarkus.internal.LockkitStartup;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.ExcludedTypeBuildItem;
import io.quarkus.deployment.IsDevelopment;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.RunTimeConfigurationDefaultBuildItem;
import org.jspecify.annotations.Nullable;

/** The extension's feature and lock-cdi's beans. */
// Design notes.
// - lock-cdi's beans are registered here, at build time, rather than left to bean discovery of the
//   lock-cdi jar (its beans.xml): the application's index may leave dependencies out
//   (quarkus.arc.exclude-dependency, an uber-jar that lost the beans.xml), and the interceptor and the
//   holder are reached only through the interceptor binding and the synthetic factory, so ArC must not
//   remove them as unused. Registering a class discovery also finds is harmless: one bean per class.
// - lock-cdi's build compatible extension keeps its work under ArC (it runs there as in any CDI Lite
//   container): @Locked validation (the build fails naming the method), the library's factory bean
//   unless the application has one, @LeaderOf beans, the readiness check where MicroProfile Health is.
//   @DistributedBulkhead's checks (capacity, permits, one capacity per name) are the same walk's.
//   Porting it to Jandex build steps would duplicate DeploymentWalk's rules for no gain today.
// - Dev mode drains for DEV_DRAIN_TIMEOUT, not lock-cdi's 30 s: a live reload stops the application,
//   and a hold it never releases (a leader's, a handle kept in a bean) made every reload wait the whole
//   drain. Requests in flight at a reload are the developer's own, and short. A configured
//   drain-timeout (plain or quarkus.lockkit key, %dev profile included) still wins.
// - Health and metrics follow Quarkus' build-time switches (quarkus.<extension>.health.enabled,
//   .metrics.enabled): health off removes the readiness check from the application rather than
//   keeping it UP; metrics off sets the default of lock-cdi's lockkit.metrics.enabled, which an
//   operator may still set at run time.
class LockkitProcessor {

    static final String FEATURE = "lockkit";

    static final String DRAIN_TIMEOUT_KEY = "quarkus.lockkit.drain-timeout";

    /** How long a dev-mode application's shutdown (a live reload, the end of dev mode) lets holders keep their locks. */
    static final String DEV_DRAIN_TIMEOUT = "2s";

    /** lock-cdi's readiness check, by name: a lock-cdi internal. */
    static final String HEALTH_CHECK = "io.lockkit.cdi.internal.LockkitReadinessCheck";

    /** lock-cdi's switch for its meters. */
    static final String METRICS_KEY = "lockkit.metrics.enabled";

    /** lock-cdi's leadership qualifier, by name. */
    static final String LEADER_OF = "io.lockkit.cdi.LeaderOf";

    /** The beans lock-cdi's interceptor and factory need, by name: they are lock-cdi internals. */
    static final String[] LOCK_CDI_BEANS = {
        "io.lockkit.cdi.internal.LockedInterceptor",
        "io.lockkit.cdi.internal.BulkheadInterceptor",
        "io.lockkit.cdi.internal.LockFactoryHolder",
    };

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep(onlyIf = IsDevelopment.class)
    RunTimeConfigurationDefaultBuildItem devModeDrainTimeout() {
        return new RunTimeConfigurationDefaultBuildItem(DRAIN_TIMEOUT_KEY, DEV_DRAIN_TIMEOUT);
    }

    /**
     * {@code quarkus.lockkit.health.enabled=false}: the readiness check (added by lock-cdi's build compatible
     * extension where MicroProfile Health is present) is no bean of the application.
     */
    @BuildStep
    @Nullable
    ExcludedTypeBuildItem healthCheck(LockkitBuildTimeConfig config) {
        return config.health().enabled() ? null : new ExcludedTypeBuildItem(HEALTH_CHECK);
    }

    /** {@code quarkus.lockkit.metrics.enabled=false}: lock-cdi binds no meters unless lockkit.metrics.enabled says so. */
    @BuildStep
    @Nullable
    RunTimeConfigurationDefaultBuildItem metrics(LockkitBuildTimeConfig config) {
        return config.metrics().enabled() ? null : new RunTimeConfigurationDefaultBuildItem(METRICS_KEY, "false");
    }

    @BuildStep
    AdditionalBeanBuildItem extensionBeans() {
        return AdditionalBeanBuildItem.builder()
                .addBeanClasses(DataSourceCheck.class, LockkitStartup.class)
                .setUnremovable()
                .build();
    }

    /**
     * lock-cdi's {@code @LeaderOf} in the beans' index, so ArC knows it as a qualifier: without it an
     * {@code @Inject @LeaderOf(name) Leadership} resolved as {@code @Default}, an unsatisfied dependency
     * that failed the build (seen when lock-cdi's jar is not in the application's index).
     */
    @BuildStep
    AdditionalBeanBuildItem leadershipQualifier() {
        return AdditionalBeanBuildItem.builder().addBeanClasses(LEADER_OF).build();
    }

    @BuildStep
    AdditionalBeanBuildItem lockCdiBeans() {
        return AdditionalBeanBuildItem.builder()
                .addBeanClasses(LOCK_CDI_BEANS)
                .setUnremovable()
                .build();
    }
}
