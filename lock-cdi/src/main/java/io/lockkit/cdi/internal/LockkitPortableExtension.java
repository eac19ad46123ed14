package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.internal.engine.DeploymentWalk;
import io.lockkit.cdi.internal.engine.ReflectionDeclarations;
import io.lockkit.cdi.internal.engine.ReflectionSignature;
import io.lockkit.spi.LockProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.context.spi.CreationalContext;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.InjectionPoint;
import jakarta.enterprise.inject.spi.ProcessBean;
import jakarta.enterprise.inject.spi.ProcessInjectionPoint;
import jakarta.enterprise.inject.spi.ProcessManagedBean;
import jakarta.enterprise.inject.spi.ProcessProducerField;
import jakarta.enterprise.inject.spi.ProcessProducerMethod;
import jakarta.enterprise.inject.spi.ProcessSyntheticBean;
import java.lang.reflect.Field;
import java.util.List;

/**
 * The portable extension, for CDI Full containers (Weld in WildFly, Payara and Java SE): the same
 * checks and the same library factory bean as {@link LockkitExtension}, which such containers then
 * skip. Quarkus (CDI Lite) runs the build compatible one.
 */
// Design notes.
// - Why two: a build compatible extension runs in CDI Full through Weld's translator, whose static
//   state keeps the last deployment's BeanManager - and so its class loader - alive after undeploy
//   (seen on WildFly 38). A portable extension is held by the deployment only.
// - The rules are the same code: DeploymentWalk, fed reflection here and the language model in the
//   build compatible extension; that includes the @LeaderOf injection points and their check.
//   Problems are reported after validation, so each fails the deployment as a DeploymentException
//   naming the method or the key to set.
// - The readiness check is added as a type, not discovered: it has no bean defining annotation, as
//   a container without the MicroProfile Health API could not load it while scanning.
public class LockkitPortableExtension implements Extension {

    private static final System.Logger LOG = System.getLogger(LockkitPortableExtension.class.getName());

    private final DeploymentWalk walk = new DeploymentWalk();

    /** Adds the {@code lockkit} readiness check where the MicroProfile Health API is present. */
    void addHealthCheck(@Observes BeforeBeanDiscovery event) {
        if (HealthChecks.present()) {
            event.addAnnotatedType(LockkitReadinessCheck.class, HealthChecks.CHECK_CLASS);
        }
    }

    void findBeans(@Observes ProcessBean<?> event) {
        Bean<?> bean = event.getBean();
        if (bean.getBeanClass() == LockFactoryHolder.class) {
            return;
        }
        List<String> qualifiers = bean.getQualifiers().stream()
                .map(q -> q.annotationType().getName())
                .toList();
        if (bean.getTypes().contains(DistributedLockFactory.class)) {
            walk.factoryBean(describe(event), qualifiers);
        }
        if (bean.getTypes().contains(LockProvider.class)) {
            walk.providerBean(describe(event), qualifiers);
        }
    }

    /** The bean as the build compatible extension describes it, so both word their messages alike. */
    private static String describe(ProcessBean<?> event) {
        if (event instanceof ProcessProducerMethod<?, ?> producer) {
            return "producer method "
                    + ReflectionSignature.describe(
                            producer.getAnnotatedProducerMethod().getJavaMember());
        }
        if (event instanceof ProcessProducerField<?, ?> producer) {
            Field field = producer.getAnnotatedProducerField().getJavaMember();
            return "producer field " + field.getDeclaringClass().getName() + "." + field.getName();
        }
        if (event instanceof ProcessSyntheticBean<?>) {
            return "synthetic bean";
        }
        return event.getBean().getBeanClass().getName();
    }

    void checkLockedMethods(@Observes ProcessManagedBean<?> event) {
        walk.beanClass(
                ReflectionDeclarations.INSTANCE, event.getAnnotatedBeanClass().getJavaClass());
    }

    /** Hands each {@code Leadership} injection point to the walk, which collects the {@code @LeaderOf} names. */
    void findLeaderships(@Observes ProcessInjectionPoint<?, Leadership> event) {
        InjectionPoint point = event.getInjectionPoint();
        walk.injectionPoint(
                ReflectionDeclarations.INSTANCE, Leadership.class.getName(), List.copyOf(point.getQualifiers()));
    }

    /** A {@code @LeaderOf(name) Leadership} bean per name injected: a view of the declared leadership. */
    void addLeaderships(@Observes AfterBeanDiscovery event, BeanManager beans) {
        for (String name : walk.leadershipNames()) {
            event.<Leadership>addBean()
                    .types(Leadership.class, Object.class)
                    .qualifiers(LeaderOf.Literal.of(name), Any.Literal.INSTANCE)
                    .scope(Dependent.class)
                    .createWith(creation -> new DeclaredLeadership(name, holder(beans, creation)));
        }
    }

    /**
     * The holder, through the bean manager (OpenWebBeans' {@code createInstance()} goes through
     * {@code CDI.current()}, which the injecting thread's class loader may not find), else as the
     * factory bean finds it.
     */
    private static LockFactoryHolder holder(BeanManager beans, CreationalContext<?> creation) {
        Bean<?> bean = beans.resolve(beans.getBeans(LockFactoryHolder.class));
        if (bean != null) {
            return (LockFactoryHolder) beans.getReference(bean, LockFactoryHolder.class, creation);
        }
        return ApplicationRegistry.find(beans.createInstance());
    }

    void addFactory(@Observes AfterBeanDiscovery event, BeanManager beans) {
        String replaced = walk.replacementNote();
        if (replaced != null) {
            LOG.log(System.Logger.Level.INFO, replaced);
            return;
        }
        // No beanClass: it defaults to this extension's class (in lock-cdi's jar, as the holder is);
        // OpenWebBeans makes the client proxy of the bean class when one is set, and of the first
        // type when none is, so DistributedLockFactory comes first.
        event.<DistributedLockFactory>addBean()
                .types(DistributedLockFactory.class, AutoCloseable.class, Object.class)
                .qualifiers(Default.Literal.INSTANCE, Any.Literal.INSTANCE)
                .scope(ApplicationScoped.class)
                .createWith(creation -> holder(beans, creation).own());
        walk.libraryFactoryAdded();
    }

    /** The walk's problems and undeclared injected leaderships fail the deployment, each naming what to fix. */
    void report(@Observes AfterDeploymentValidation event) {
        for (String problem : walk.problems()) {
            event.addDeploymentProblem(new DeploymentException(problem));
        }
        for (String problem : DeploymentWalk.undeclaredLeaderships(walk.leadershipNames())) {
            event.addDeploymentProblem(new DeploymentException(problem));
        }
    }
}
