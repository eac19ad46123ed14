package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.internal.engine.LockedMethod;
import io.lockkit.cdi.internal.engine.LockkitConfig;
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
import jakarta.enterprise.inject.spi.ProcessBean;
import jakarta.enterprise.inject.spi.ProcessInjectionPoint;
import jakarta.enterprise.inject.spi.ProcessManagedBean;
import jakarta.inject.Named;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * The portable extension, for CDI Full containers (Weld in WildFly, Payara and Java SE): the same
 * checks and the same library factory bean as {@link LockkitExtension}, which such containers then
 * skip. Quarkus (CDI Lite) runs the build compatible one.
 */
// Design notes.
// - Why two: a build compatible extension runs in CDI Full through Weld's translator, whose static
//   state keeps the last deployment's BeanManager - and so its class loader - alive after undeploy
//   (seen on WildFly 38). A portable extension is held by the deployment only.
// - The rules are the same code: LockedMethod.of (reflection) applies LockedDeclaration's checks,
//   which the build compatible extension applies through the language model. Problems are reported
//   after validation, so each fails the deployment as a DeploymentException naming the method.
// - The readiness check is added as a type, not discovered: it has no bean defining annotation, as
//   a container without the MicroProfile Health API could not load it while scanning.
public class LockkitPortableExtension implements Extension {

    private static final System.Logger LOG = System.getLogger(LockkitPortableExtension.class.getName());

    private final List<String> applicationFactories = new CopyOnWriteArrayList<>();
    private final List<String> applicationProviders = new CopyOnWriteArrayList<>();
    private final List<String> problems = new CopyOnWriteArrayList<>();
    /** The names of {@code @Inject @LeaderOf(name) Leadership} injection points. */
    private final java.util.Set<String> leaderships = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Adds the {@code lockkit} readiness check where the MicroProfile Health API is present. */
    void addHealthCheck(@Observes BeforeBeanDiscovery event) {
        if (HealthChecks.present()) {
            event.addAnnotatedType(LockkitReadinessCheck.class, HealthChecks.CHECK_CLASS);
        }
    }

    void findBeans(@Observes ProcessBean<?> event) {
        Bean<?> bean = event.getBean();
        if (bean.getBeanClass() == LockFactoryHolder.class || !hasDefaultQualifier(bean)) {
            return;
        }
        if (bean.getTypes().contains(DistributedLockFactory.class)) {
            applicationFactories.add(describe(bean));
        }
        if (bean.getTypes().contains(LockProvider.class)) {
            applicationProviders.add(describe(bean));
        }
    }

    void checkLockedMethods(@Observes ProcessManagedBean<?> event) {
        Class<?> beanClass = event.getAnnotatedBeanClass().getJavaClass();
        if (beanClass.isAnnotationPresent(jakarta.interceptor.Interceptor.class)) {
            return;
        }
        Locked classBinding = beanClass.getAnnotation(Locked.class); // @Inherited: superclasses too
        for (Method method : businessMethods(beanClass)) {
            Locked binding = method.getAnnotation(Locked.class);
            if (binding == null) {
                binding = classBinding;
            }
            if (binding == null) {
                continue;
            }
            if (Modifier.isStatic(method.getModifiers()) || Modifier.isPrivate(method.getModifiers())) {
                problems.add("@Locked on " + ReflectionSignature.describe(method) + ": "
                        + (Modifier.isStatic(method.getModifiers()) ? "static" : "private")
                        + " methods are not intercepted, so the lock would never be taken");
                continue;
            }
            try {
                LockedMethod.of(method, binding);
            } catch (IllegalStateException e) {
                problems.add(e.getMessage());
            }
        }
    }

    /** Collects the names of {@code @LeaderOf(name) Leadership} injection points, each to get a bean. */
    void findLeaderships(@Observes ProcessInjectionPoint<?, Leadership> event) {
        for (Annotation qualifier : event.getInjectionPoint().getQualifiers()) {
            if (qualifier instanceof LeaderOf leaderOf) {
                leaderships.add(leaderOf.value());
            }
        }
    }

    /** A {@code @LeaderOf(name) Leadership} bean per name injected: a view of the declared leadership. */
    void addLeaderships(@Observes AfterBeanDiscovery event, BeanManager beans) {
        for (String name : leaderships) {
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
        return LockFactoryHolder.find(beans.createInstance());
    }

    void addFactory(@Observes AfterBeanDiscovery event, BeanManager beans) {
        if (!applicationFactories.isEmpty()) {
            LOG.log(
                    System.Logger.Level.INFO,
                    "lockkit: the application''s DistributedLockFactory {0} replaces the" + " library''s",
                    applicationFactories);
            return;
        }
        // No beanClass: it defaults to this extension's class (in lock-cdi's jar, as the holder is);
        // OpenWebBeans makes the client proxy of the bean class when one is set, and of the first
        // type when none is, so DistributedLockFactory comes first.
        event.<DistributedLockFactory>addBean()
                .types(DistributedLockFactory.class, AutoCloseable.class, Object.class)
                .qualifiers(Default.Literal.INSTANCE, Any.Literal.INSTANCE)
                .scope(ApplicationScoped.class)
                .createWith(creation -> LockFactoryHolder.ownFactory(beans.createInstance()));
    }

    void report(@Observes AfterDeploymentValidation event) {
        for (String problem : problems) {
            event.addDeploymentProblem(new DeploymentException(problem));
        }
        checkLeaderships(event);
        if (applicationFactories.isEmpty() && applicationProviders.size() > 1) {
            event.addDeploymentProblem(new DeploymentException("lockkit: several LockProvider beans with the @Default"
                    + " qualifier: " + String.join(", ", applicationProviders)
                    + "; keep one, or produce the DistributedLockFactory yourself"));
        }
    }

    /**
     * An injected {@code @LeaderOf(name) Leadership} whose name the configuration does not declare
     * fails the deployment (a leadership that never campaigns would make every instance skip the
     * leader's work); a misspelt leadership setting is left to the application start, which names it.
     */
    private void checkLeaderships(AfterDeploymentValidation event) {
        if (leaderships.isEmpty()) {
            return;
        }
        java.util.Set<String> declared;
        try {
            declared = LockkitConfig.load().leadershipNames();
        } catch (IllegalArgumentException e) {
            return;
        }
        for (String name : new java.util.TreeSet<>(leaderships)) {
            if (!declared.contains(name)) {
                event.addDeploymentProblem(new DeploymentException("lockkit: @LeaderOf(\"" + name + "\") Leadership is"
                        + " injected, but the configuration declares no leadership '" + name + "': set "
                        + LockkitConfig.leadershipKey(LockkitConfig.LEADERSHIP_LEASE, name)));
            }
        }
    }

    /**
     * The methods of the bean class and its superclasses that a {@code @Locked} could apply to: one
     * per signature, the most specific declaration; private and static ones only when annotated.
     */
    private static List<Method> businessMethods(Class<?> beanClass) {
        Map<String, Method> bySignature = new HashMap<>();
        for (Class<?> c = beanClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.isBridge() || m.isSynthetic()) {
                    continue;
                }
                boolean excluded = Modifier.isStatic(m.getModifiers()) || Modifier.isPrivate(m.getModifiers());
                if (excluded && !m.isAnnotationPresent(Locked.class)) {
                    continue;
                }
                String signature = m.getName()
                        + Arrays.stream(m.getParameterTypes())
                                .map(Class::getName)
                                .collect(Collectors.joining(",", "(", ")"));
                if (excluded) {
                    signature = c.getName() + "#" + signature;
                }
                bySignature.putIfAbsent(signature, m); // subclasses first: the most specific wins
            }
        }
        return new ArrayList<>(bySignature.values());
    }

    private static boolean hasDefaultQualifier(Bean<?> bean) {
        boolean onlyAnyOrNamed = true;
        for (Annotation qualifier : bean.getQualifiers()) {
            Class<? extends Annotation> type = qualifier.annotationType();
            if (type == Default.class) {
                return true;
            }
            onlyAnyOrNamed &= type == Any.class || type == Named.class;
        }
        return onlyAnyOrNamed;
    }

    private static String describe(Bean<?> bean) {
        return bean.toString();
    }
}
