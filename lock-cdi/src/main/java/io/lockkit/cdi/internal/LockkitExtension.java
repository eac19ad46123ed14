package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.internal.engine.DeploymentWalk;
import io.lockkit.spi.LockProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.event.Startup;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.build.compatible.spi.BeanInfo;
import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.Discovery;
import jakarta.enterprise.inject.build.compatible.spi.InjectionPointInfo;
import jakarta.enterprise.inject.build.compatible.spi.Messages;
import jakarta.enterprise.inject.build.compatible.spi.Parameters;
import jakarta.enterprise.inject.build.compatible.spi.Registration;
import jakarta.enterprise.inject.build.compatible.spi.ScannedClasses;
import jakarta.enterprise.inject.build.compatible.spi.SkipIfPortableExtensionPresent;
import jakarta.enterprise.inject.build.compatible.spi.Synthesis;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticBeanCreator;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticComponents;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticObserver;
import jakarta.enterprise.inject.build.compatible.spi.Validation;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.EventContext;
import jakarta.enterprise.lang.model.AnnotationInfo;
import jakarta.interceptor.Interceptor;
import java.util.List;
import java.util.SortedSet;

/**
 * Build compatible extension, run by Quarkus ArC at build time (CDI Full containers run
 * {@link LockkitPortableExtension} instead): it checks every
 * bean's {@code @Locked} methods (deployment fails naming the method), and it adds the library's
 * {@code @Default} {@link DistributedLockFactory} bean only when the application has none.
 */
// Design notes.
// - Replacement without ambiguity: CDI 4.1 has no "default bean" (Quarkus' @DefaultBean is ArC's
//   own), and an @Alternative would beat the application's plain bean instead of yielding to it.
//   So the library's factory bean is synthetic: @Registration sees every bean, including the
//   application's producers, before @Synthesis decides whether to add ours - the build compatible
//   form of Hibernate Validator's "add a ValidatorFactory bean unless there is one" extension.
// - Nothing else depends on this extension: the interceptor and LockFactoryHolder are discovered
//   beans, and @Locked falls back to the holder's own factory if the synthetic bean is missing.
// - Checks use the language model, not reflection: in Quarkus no application class is loaded at
//   build time. The walk and its rules are DeploymentWalk's, which the portable extension feeds
//   reflection; problems are reported at @Validation, as the portable one reports them after
//   validation, so both fail the deployment with the same messages.
// - Injected leaderships (@LeaderOf) are collected by the same walk, but checked at the start: in
//   Quarkus this runs at build time, and the leaderships are the run time's configuration (a system
//   property, a config source). A synthetic observer of the Startup event (Quarkus' StartupEvent is
//   one) runs the walk's check first of all, so the start fails before any bean used a leadership.
// - The readiness check (LockkitReadinessCheck) is added at @Discovery by name, and only when the
//   MicroProfile Health API is present: it has no bean defining annotation of its own.
@SkipIfPortableExtensionPresent(LockkitPortableExtension.class)
public class LockkitExtension implements BuildCompatibleExtension {

    /**
     * The leadership check's place among the observers of the Startup event: before every other,
     * lock-quarkus' start ({@code PLATFORM_BEFORE - 1000}) and the application's {@code @Startup} beans
     * among them, so no bean has used a leadership when a missing one fails the start.
     */
    static final int LEADERSHIP_CHECK_PRIORITY = Interceptor.Priority.PLATFORM_BEFORE - 2000;

    private static final String NAMES = "names";

    private final DeploymentWalk walk = new DeploymentWalk();

    /** Adds the {@code lockkit} readiness check where the MicroProfile Health API is present. */
    @Discovery
    public void addHealthCheck(ScannedClasses scan) {
        if (HealthChecks.present()) {
            scan.add(HealthChecks.CHECK_CLASS);
        }
    }

    @Registration(types = DistributedLockFactory.class)
    public void findFactories(BeanInfo bean) {
        // Ours is added at @Synthesis, after every @Registration call that could matter.
        walk.factoryBean(describe(bean), qualifiers(bean));
    }

    @Registration(types = LockProvider.class)
    public void findProviders(BeanInfo bean) {
        walk.providerBean(describe(bean), qualifiers(bean));
    }

    @Registration(types = Object.class)
    public void checkLockedMethods(BeanInfo bean) {
        if (bean.isClassBean()) {
            walk.beanClass(LangModelDeclarations.INSTANCE, bean.declaringClass());
        }
    }

    /** Every problem the walk found fails the deployment (two @Default providers, a broken @Locked). */
    @Validation
    public void report(Messages messages) {
        for (String problem : walk.problems()) {
            messages.error(problem);
        }
    }

    /** Hands each injection point to the walk, which collects the {@code @LeaderOf(name) Leadership} names. */
    @Registration(types = Object.class)
    public void findLeaderships(BeanInfo bean) {
        for (InjectionPointInfo point : bean.injectionPoints()) {
            walk.injectionPoint(
                    LangModelDeclarations.INSTANCE, LangModelDeclarations.erasure(point.type()), point.qualifiers());
        }
    }

    /**
     * A {@code @LeaderOf(name) Leadership} bean per name injected (a view of the declared leadership),
     * and the check of the names against the run time's configuration at the start.
     */
    @Synthesis
    public void addLeaderships(SyntheticComponents components) {
        SortedSet<String> names = walk.leadershipNames();
        for (String name : names) {
            components
                    .addBean(Leadership.class)
                    .type(Leadership.class)
                    .qualifier(LeaderOf.Literal.of(name))
                    .scope(Dependent.class)
                    .withParam("name", name)
                    .createWith(DeclaredLeaderships.class);
        }
        if (!names.isEmpty()) {
            components
                    .addObserver(Startup.class)
                    .priority(LEADERSHIP_CHECK_PRIORITY)
                    .withParam(NAMES, names.toArray(String[]::new))
                    .observeWith(LeadershipCheck.class);
        }
    }

    /** Fails the start when the configuration declares no leadership for a name injected. */
    public static class LeadershipCheck implements SyntheticObserver<Startup> {
        @Override
        public void observe(EventContext<Startup> event, Parameters params) {
            List<String> problems = DeploymentWalk.undeclaredLeaderships(List.of(params.get(NAMES, String[].class)));
            if (!problems.isEmpty()) {
                throw new DeploymentException(String.join("; ", problems));
            }
        }
    }

    /** Creates a {@code @LeaderOf(name) Leadership} bean: a view of the leadership declared under that name. */
    public static class DeclaredLeaderships implements SyntheticBeanCreator<Leadership> {
        @Override
        public Leadership create(Instance<Object> lookup, Parameters params) {
            return new DeclaredLeadership(params.get("name", String.class), ApplicationRegistry.find(lookup));
        }
    }

    @Synthesis
    public void addFactory(SyntheticComponents components, Messages messages) {
        String replaced = walk.replacementNote();
        if (replaced != null) {
            messages.info(replaced);
            return;
        }
        components
                .addBean(DistributedLockFactory.class)
                .type(DistributedLockFactory.class)
                .scope(ApplicationScoped.class)
                .createWith(OwnFactory.class);
        walk.libraryFactoryAdded();
    }

    /** Creates the library's factory bean: the one {@link LockFactoryHolder} builds and closes. */
    public static class OwnFactory implements SyntheticBeanCreator<DistributedLockFactory> {
        @Override
        public DistributedLockFactory create(Instance<Object> lookup, Parameters params) {
            return ApplicationRegistry.ownFactory(lookup);
        }
    }

    private static List<String> qualifiers(BeanInfo bean) {
        return bean.qualifiers().stream().map(AnnotationInfo::name).toList();
    }

    private static String describe(BeanInfo bean) {
        if (bean.isProducerMethod()) {
            return "producer method " + LangModelSignature.describe(bean.producerMethod());
        }
        if (bean.isProducerField()) {
            return "producer field " + bean.producerField().declaringClass().name() + "."
                    + bean.producerField().name();
        }
        return bean.declaringClass() != null ? bean.declaringClass().name() : "synthetic bean";
    }
}
