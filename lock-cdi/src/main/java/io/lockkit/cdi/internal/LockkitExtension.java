package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.WhenBusy;
import io.lockkit.cdi.internal.engine.DeclarationException;
import io.lockkit.cdi.internal.engine.LockedDeclaration;
import io.lockkit.cdi.internal.engine.LockedMethod;
import io.lockkit.cdi.internal.engine.LockedValues;
import io.lockkit.spi.LockProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
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
import jakarta.enterprise.lang.model.AnnotationMember;
import jakarta.enterprise.lang.model.declarations.ClassInfo;
import jakarta.enterprise.lang.model.declarations.MethodInfo;
import jakarta.inject.Named;
import java.lang.reflect.Modifier;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

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
//   build time. The rules themselves are LockedDeclaration's, shared with the first-call check.
// - The readiness check (LockkitReadinessCheck) is added at @Discovery by name, and only when the
//   MicroProfile Health API is present: it has no bean defining annotation of its own.
@SkipIfPortableExtensionPresent(LockkitPortableExtension.class)
public class LockkitExtension implements BuildCompatibleExtension {

    // Weld may fire registration events from several threads (concurrent deployment).
    private final List<String> applicationFactories = new CopyOnWriteArrayList<>();
    private final List<String> applicationProviders = new CopyOnWriteArrayList<>();
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
        if (hasDefaultQualifier(bean)) {
            applicationFactories.add(describe(bean));
        }
    }

    @Registration(types = LockProvider.class)
    public void findProviders(BeanInfo bean) {
        if (hasDefaultQualifier(bean)) {
            applicationProviders.add(describe(bean));
        }
    }

    /** The library builds its factory over the one @Default LockProvider: two of them fail the deployment. */
    @Validation
    public void checkProviders(Messages messages) {
        if (applicationFactories.isEmpty() && applicationProviders.size() > 1) {
            messages.error("lockkit: several LockProvider beans with the @Default qualifier: "
                    + String.join(", ", applicationProviders)
                    + "; keep one, or produce the DistributedLockFactory yourself");
        }
    }

    @Registration(types = Object.class)
    public void checkLockedMethods(BeanInfo bean, Messages messages) {
        if (!bean.isClassBean() || bean.isInterceptor()) {
            return;
        }
        ClassInfo beanClass = bean.declaringClass();
        AnnotationInfo classBinding = classBinding(beanClass);
        Collection<MethodInfo> methods = beanClass.methods();
        if (classBinding == null && methods.stream().noneMatch(m -> m.hasAnnotation(Locked.class))) {
            return; // most beans: nothing to check
        }
        for (MethodInfo method : businessMethods(beanClass, methods)) {
            AnnotationInfo binding = method.annotation(Locked.class);
            if (binding == null) {
                binding = classBinding;
            }
            if (binding == null) {
                continue;
            }
            String problem = check(method, binding);
            if (problem != null) {
                messages.error(problem, method);
            }
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
            return new DeclaredLeadership(params.get("name", String.class), LockFactoryHolder.find(lookup));
        }
    }

    @Synthesis
    public void addFactory(SyntheticComponents components, Messages messages) {
        if (!applicationFactories.isEmpty()) {
            messages.info("lockkit: the application's DistributedLockFactory " + applicationFactories
                    + " replaces the library's");
            return;
        }
        components
                .addBean(DistributedLockFactory.class)
                .type(DistributedLockFactory.class)
                .scope(ApplicationScoped.class)
                .createWith(OwnFactory.class);
    }

    /** Creates the library's factory bean: the one {@link LockFactoryHolder} builds and closes. */
    public static class OwnFactory implements SyntheticBeanCreator<DistributedLockFactory> {
        @Override
        public DistributedLockFactory create(Instance<Object> lookup, Parameters params) {
            return LockFactoryHolder.ownFactory(lookup);
        }
    }

    /** The error message for {@code method}, or null when its declaration is sound. */
    static @Nullable String check(MethodInfo method, AnnotationInfo binding) {
        String describe = LangModelSignature.describe(method);
        if (method.isStatic() || Modifier.isPrivate(method.modifiers())) {
            return "@Locked on " + describe + ": " + (method.isStatic() ? "static" : "private")
                    + " methods are not intercepted, so the lock would never be taken";
        }
        try {
            LockedDeclaration.check(
                    new LangModelSignature(method),
                    values(binding),
                    LockedMethod.defaultName(method.declaringClass().name(), method.name()));
            return null;
        } catch (DeclarationException e) {
            return LockedMethod.message(describe, e);
        }
    }

    private static LockedValues values(AnnotationInfo binding) {
        return new LockedValues(
                member(binding, "value").asString(),
                member(binding, "waitTime").asLong(),
                ChronoUnit.valueOf(member(binding, "waitUnit").asEnumConstant()),
                member(binding, "leaseTime").asLong(),
                ChronoUnit.valueOf(member(binding, "leaseUnit").asEnumConstant()),
                WhenBusy.valueOf(member(binding, "whenBusy").asEnumConstant()),
                member(binding, "holdAtLeast").asLong(),
                ChronoUnit.valueOf(member(binding, "holdAtLeastUnit").asEnumConstant()));
    }

    private static AnnotationMember member(AnnotationInfo binding, String name) {
        AnnotationMember member = binding.member(name);
        if (member != null) {
            return member;
        }
        throw new IllegalStateException("the container's language model omits @Locked." + name + " on " + binding);
    }

    /** The class-level {@code @Locked} in force: the bean class's or the nearest superclass's ({@code @Inherited}). */
    private static @Nullable AnnotationInfo classBinding(ClassInfo beanClass) {
        for (ClassInfo c = beanClass;
                c != null && !c.name().equals("java.lang.Object");
                c = c.superClassDeclaration()) {
            AnnotationInfo binding = c.annotation(Locked.class);
            if (binding != null) {
                return binding;
            }
        }
        return null;
    }

    /**
     * The methods of the bean class and its superclasses that a {@code @Locked} could apply to:
     * one per signature, the most specific declaration; interface methods aside (bindings on
     * them are not inherited). Private and static ones are kept when annotated, to be reported.
     */
    private static List<MethodInfo> businessMethods(ClassInfo beanClass, Collection<MethodInfo> methods) {
        Map<String, Integer> depth = new HashMap<>();
        int d = 0;
        for (ClassInfo c = beanClass; c != null; c = c.superClassDeclaration()) {
            depth.put(c.name(), d++);
        }
        Map<String, MethodInfo> bySignature = new HashMap<>();
        for (MethodInfo m : methods) {
            Integer at = depth.get(m.declaringClass().name());
            if (at == null
                    || m.isConstructor()
                    || m.declaringClass().name().equals("java.lang.Object")
                    || (m.modifiers() & LangModelSignature.BRIDGE_OR_SYNTHETIC) != 0) {
                continue;
            }
            boolean excluded = m.isStatic() || Modifier.isPrivate(m.modifiers());
            if (excluded && !m.hasAnnotation(Locked.class)) {
                continue;
            }
            String signature = m.name()
                    + m.parameters().stream()
                            .map(p -> LangModelSignature.simpleName(p.type()))
                            .collect(Collectors.joining(",", "(", ")"));
            if (excluded) {
                signature = m.declaringClass().name() + "#" + signature; // not overridable: report each
            }
            MethodInfo seen = bySignature.get(signature);
            if (seen == null || depth.getOrDefault(seen.declaringClass().name(), 0) > at) {
                bySignature.put(signature, m);
            }
        }
        return new ArrayList<>(bySignature.values());
    }

    /** Whether {@code @Inject DistributedLockFactory} would see this bean. */
    private static boolean hasDefaultQualifier(BeanInfo bean) {
        boolean onlyAnyOrNamed = true;
        for (AnnotationInfo qualifier : bean.qualifiers()) {
            String name = qualifier.name();
            if (name.equals(Default.class.getName())) {
                return true;
            }
            onlyAnyOrNamed &= name.equals(Any.class.getName()) || name.equals(Named.class.getName());
        }
        return onlyAnyOrNamed;
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
