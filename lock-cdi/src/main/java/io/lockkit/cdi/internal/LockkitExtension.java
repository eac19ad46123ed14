package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.internal.engine.DeploymentWalk;
import io.lockkit.spi.LockProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
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
import jakarta.enterprise.inject.build.compatible.spi.Validation;
import jakarta.enterprise.lang.model.AnnotationInfo;
import java.util.List;

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
// - The readiness check (LockkitReadinessCheck) is added at @Discovery by name, and only when the
//   MicroProfile Health API is present: it has no bean defining annotation of its own.
@SkipIfPortableExtensionPresent(LockkitPortableExtension.class)
public class LockkitExtension implements BuildCompatibleExtension {

    private final DeploymentWalk walk = new DeploymentWalk();
    /** The names of {@code @Inject @LeaderOf(name) Leadership} injection points. */
    private final java.util.Set<String> leaderships = java.util.concurrent.ConcurrentHashMap.newKeySet();

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

    /** Collects the names of {@code @LeaderOf(name) Leadership} injection points, each to get a bean. */
    @Registration(types = Object.class)
    public void findLeaderships(BeanInfo bean) {
        for (InjectionPointInfo point : bean.injectionPoints()) {
            if (!point.type().isClass()
                    || !point.type().asClass().declaration().name().equals(Leadership.class.getName())) {
                continue;
            }
            for (AnnotationInfo qualifier : point.qualifiers()) {
                if (qualifier.name().equals(LeaderOf.class.getName())) {
                    leaderships.add(qualifier.value().asString());
                }
            }
        }
    }

    /** A {@code @LeaderOf(name) Leadership} bean per name injected: a view of the declared leadership. */
    @Synthesis
    public void addLeaderships(SyntheticComponents components) {
        for (String name : leaderships) {
            components
                    .addBean(Leadership.class)
                    .type(Leadership.class)
                    .qualifier(LeaderOf.Literal.of(name))
                    .scope(Dependent.class)
                    .withParam("name", name)
                    .createWith(DeclaredLeaderships.class);
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
