package io.lockkit.cdi.internal.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * One deployment's checks, whichever extension the container runs: each bean class's {@code @Locked}
 * bindings (on the method, else on the class or a superclass; directly or through stereotypes) are
 * resolved and checked, the {@code @Default} factory and provider beans are counted, and the
 * {@code @LeaderOf(name) Leadership} injection points are collected, their names checked against the
 * configuration by {@link #undeclaredLeaderships}. The portable extension feeds it reflection, the
 * build compatible one the CDI language model; each then only reports {@link #problems()}, adds the
 * library's factory bean unless {@link #applicationFactories()} has one, and a leadership bean per
 * name in {@link #leadershipNames()}.
 */
// Design notes.
// - Overloads are told apart by the binary names of their parameter types' erasures, so
//   ship(a.Order) and ship(b.Order) are two methods; an override is the same method as the one it
//   overrides, and only the most specific declaration counts (method bindings are not inherited).
// - Private and static methods are never intercepted: a binding on one is reported, not resolved;
//   a class binding does not reach them.
// - Stereotypes are followed as the interceptor follows them at the first call (InterceptorBindings),
//   so a bad template behind a stereotype fails the deployment too. On superclasses only @Inherited
//   annotations count, as for the bean class's own annotations in reflection.
// - Injected leaderships are checked against the run time's configuration, so where the walk runs
//   at build time (Quarkus) the build compatible extension runs the check at the start, before any
//   other observer of the Startup event; the portable one runs it after validation. One message.
// - Thread-safe: Weld may fire bean events from several threads.
public final class DeploymentWalk {

    private static final System.Logger LOG = System.getLogger(DeploymentWalk.class.getName());

    static final String LOCKED = "io.lockkit.cdi.Locked";
    static final String BULKHEAD = "io.lockkit.cdi.DistributedBulkhead";
    /** The interceptor bindings the walk resolves and checks. */
    private static final List<String> BINDINGS = List.of(LOCKED, BULKHEAD);

    private static final String LEADERSHIP = "io.lockkit.Leadership";
    private static final String LEADER_OF = "io.lockkit.cdi.LeaderOf";
    private static final String STEREOTYPE = "jakarta.enterprise.inject.Stereotype";
    private static final String INTERCEPTOR = "jakarta.interceptor.Interceptor";
    private static final String INHERITED = "java.lang.annotation.Inherited";
    private static final String DEFAULT = "jakarta.enterprise.inject.Default";
    private static final String ANY = "jakarta.enterprise.inject.Any";
    private static final String NAMED = "jakarta.inject.Named";

    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final List<String> applicationFactories = new CopyOnWriteArrayList<>();
    private final List<String> applicationProviders = new CopyOnWriteArrayList<>();
    private final Set<String> leaderships = ConcurrentHashMap.newKeySet();
    private final Map<String, Capacity> capacities = new ConcurrentHashMap<>();
    private volatile boolean libraryFactoryAdded;

    /** A resolved binding: the method (binary parameter type names) and the {@code @Locked} members in force for it. */
    public record Binding(String method, LockedValues values) {}

    /**
     * Resolves and checks the {@code @Locked} bindings of the bean class {@code beanClass}
     * (an interceptor class has none); problems are kept for {@link #problems()}.
     *
     * @return the bindings in force, sound or not, in a stable order
     */
    public <C, M, A> List<Binding> beanClass(DeclarationModel<C, M, A> model, C beanClass) {
        for (A annotation : model.classAnnotations(beanClass)) {
            if (model.annotationName(annotation).equals(INTERCEPTOR)) {
                return List.of(); // an interceptor's own binding (the @Locked interceptor's) binds nothing
            }
        }
        List<Binding> bindings = new ArrayList<>();
        for (String type : BINDINGS) {
            bindings(model, beanClass, type, bindings);
        }
        bindings.sort(Comparator.comparing(Binding::method));
        for (Binding b : bindings) {
            LOG.log(System.Logger.Level.DEBUG, () -> "lockkit: " + b.method() + ": " + b.values());
        }
        return bindings;
    }

    /** Resolves and checks the bindings of annotation {@code type} on the methods of {@code beanClass}, into {@code into}. */
    private <C, M, A> void bindings(DeclarationModel<C, M, A> model, C beanClass, String type, List<Binding> into) {
        A classBinding = classBinding(model, beanClass, type);
        for (Declared<C, M> declared : businessMethods(model, beanClass)) {
            M method = declared.method();
            boolean excluded = model.isStatic(method) || model.isPrivate(method);
            A binding = binding(model, model.methodAnnotations(method), type, new HashSet<>(), false);
            if (binding == null && !excluded) {
                binding = classBinding;
            }
            if (binding == null) {
                continue;
            }
            SignatureModel<?> signature = model.signature(method);
            LockedValues values = model.lockedValues(binding);
            into.add(new Binding(
                    model.className(declared.in()) + "." + model.methodName(method) + "("
                            + String.join(", ", model.parameterTypeNames(method)) + ")",
                    values));
            if (excluded) {
                problems.add("@" + values.binding() + " on " + signature.describe() + ": "
                        + (model.isStatic(method) ? "static" : "private")
                        + " methods are not intercepted, so the lock would never be taken");
                continue;
            }
            String defaultName = LockedMethod.defaultName(model.className(declared.in()), model.methodName(method));
            try {
                LockedDeclaration.check(signature, values, defaultName);
                if (values.isBulkhead()) {
                    sameCapacity(values, values.template().isEmpty() ? defaultName : values.template(), signature);
                }
            } catch (DeclarationException e) {
                problems.add(LockedMethod.message(values, signature.describe(), e));
            }
        }
    }

    /**
     * Every bulkhead of one name template declares one capacity: the backend keeps the first
     * acquisition's, so another would silently count against it. Checked among sound declarations.
     */
    private void sameCapacity(LockedValues values, String template, SignatureModel<?> signature) {
        Capacity mine = new Capacity(values.capacity(), signature.describe());
        Capacity first = capacities.putIfAbsent(template, mine);
        if (first == null || first.capacity() == mine.capacity()) {
            return;
        }
        // Reported on the later method in name order, so both extensions word it alike whatever order they walk.
        boolean mineLater = mine.method().compareTo(first.method()) > 0;
        Capacity subject = mineLater ? mine : first;
        Capacity other = mineLater ? first : mine;
        problems.add("@" + values.binding() + " on " + subject.method() + ": capacity " + subject.capacity()
                + " differs from the capacity " + other.capacity() + " that " + other.method()
                + " declares for the same semaphore '" + template + "'; give every declaration of a name one capacity");
    }

    /** The capacity a bulkhead name template was first declared with, and where. */
    private record Capacity(int capacity, String method) {}

    /** Counts a bean of type {@code DistributedLockFactory}, described for messages, with its qualifiers' type names. */
    public void factoryBean(String describe, Collection<String> qualifiers) {
        if (hasDefaultQualifier(qualifiers) && !libraryFactoryAdded) {
            applicationFactories.add(describe);
        }
    }

    /** Counts a bean of type {@code LockProvider}, described for messages, with its qualifiers' type names. */
    public void providerBean(String describe, Collection<String> qualifiers) {
        if (hasDefaultQualifier(qualifiers)) {
            applicationProviders.add(describe);
        }
    }

    /**
     * Counts an injection point of type {@code typeName} (the binary name of its erasure) with the
     * qualifiers {@code qualifiers}: a {@code @LeaderOf(name) Leadership} one injects the leadership
     * {@code name}.
     */
    public <C, M, A> void injectionPoint(DeclarationModel<C, M, A> model, String typeName, Collection<A> qualifiers) {
        if (!typeName.equals(LEADERSHIP)) {
            return;
        }
        for (A qualifier : qualifiers) {
            if (model.annotationName(qualifier).equals(LEADER_OF)) {
                leaderships.add(model.leaderOfName(qualifier));
            }
        }
    }

    /** The names of the injected leaderships, each to get a bean, in order. */
    public SortedSet<String> leadershipNames() {
        return new TreeSet<>(leaderships);
    }

    /**
     * The one check of injected leaderships: a message for each name among {@code injected} that the
     * configuration does not declare (a leadership that never campaigns would make every instance
     * skip the leader's work). A misspelt leadership setting gives none here: the application start
     * names it.
     */
    public static List<String> undeclaredLeaderships(Collection<String> injected) {
        if (injected.isEmpty()) {
            return List.of();
        }
        LockkitConfig config = LockkitConfig.load();
        Set<String> declared;
        try {
            declared = config.leadershipNames();
        } catch (IllegalArgumentException e) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        for (String name : new TreeSet<>(injected)) {
            if (!declared.contains(name)) {
                problems.add("lockkit: @LeaderOf(\"" + name + "\") Leadership is injected, but the configuration"
                        + " declares no leadership '" + name + "': set "
                        + config.name(LockkitConfig.leadershipKey(LockkitConfig.LEADERSHIP_LEASE, name)));
            }
        }
        return problems;
    }

    /**
     * The extension added the library's factory bean: factory beans seen from now on are synthetic
     * ones (every other bean is seen before), the library's among them, not the application's.
     */
    public void libraryFactoryAdded() {
        libraryFactoryAdded = true;
    }

    /** The application's own {@code @Default} factory beans: when there is one, the library adds none. */
    public List<String> applicationFactories() {
        return List.copyOf(applicationFactories);
    }

    /** The note to log when the application's factory replaces the library's, or null when it does not. */
    public @Nullable String replacementNote() {
        return applicationFactories.isEmpty()
                ? null
                : "lockkit: the application's DistributedLockFactory " + applicationFactories
                        + " replaces the library's";
    }

    /** Every problem found so far, each a message that fails the deployment, in the order found. */
    public List<String> problems() {
        List<String> all = new ArrayList<>(problems);
        if (applicationFactories.isEmpty() && applicationProviders.size() > 1) {
            all.add("lockkit: several LockProvider beans with the @Default qualifier: "
                    + String.join(", ", new java.util.TreeSet<>(applicationProviders))
                    + "; keep one, or produce the DistributedLockFactory yourself");
        }
        return all;
    }

    /** Whether {@code @Inject DistributedLockFactory} would see a bean with these qualifiers. */
    static boolean hasDefaultQualifier(Collection<String> qualifiers) {
        boolean onlyAnyOrNamed = true;
        for (String name : qualifiers) {
            if (name.equals(DEFAULT)) {
                return true;
            }
            onlyAnyOrNamed &= name.equals(ANY) || name.equals(NAMED);
        }
        return onlyAnyOrNamed;
    }

    /** The class binding in force: the bean class's, else the nearest superclass's inherited one. */
    private static <C, M, A> @Nullable A classBinding(DeclarationModel<C, M, A> model, C beanClass, String type) {
        boolean inheritedOnly = false;
        for (C c = beanClass; c != null && !model.className(c).equals("java.lang.Object"); c = model.superclass(c)) {
            A found = binding(model, model.classAnnotations(c), type, new HashSet<>(), inheritedOnly);
            if (found != null) {
                return found;
            }
            inheritedOnly = true;
        }
        return null;
    }

    /** The binding {@code type} among {@code annotations}, else carried by a stereotype among them (stereotypes may nest). */
    private static <C, M, A> @Nullable A binding(
            DeclarationModel<C, M, A> model,
            Collection<A> annotations,
            String type,
            Set<String> seen,
            boolean inheritedOnly) {
        List<C> stereotypes = new ArrayList<>();
        for (A annotation : annotations) {
            String name = model.annotationName(annotation);
            if (name.equals(type)) {
                return annotation;
            }
            if (name.startsWith("java.") || name.startsWith("jakarta.") || !seen.add(name)) {
                continue; // the platform's annotations carry no @Locked
            }
            C annotationType = model.annotationType(annotation);
            if (annotationType == null) {
                continue;
            }
            Set<String> meta = new HashSet<>();
            for (A on : model.classAnnotations(annotationType)) {
                meta.add(model.annotationName(on));
            }
            if (meta.contains(STEREOTYPE) && (!inheritedOnly || meta.contains(INHERITED))) {
                stereotypes.add(annotationType);
            }
        }
        for (C stereotype : stereotypes) {
            A found = binding(model, model.classAnnotations(stereotype), type, seen, false);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /**
     * The methods of the bean class and its superclasses that a {@code @Locked} could apply to: one
     * per signature, the most specific declaration; private and static ones only when annotated,
     * each on its own (they override nothing).
     */
    private static <C, M, A> List<Declared<C, M>> businessMethods(DeclarationModel<C, M, A> model, C beanClass) {
        Map<String, Declared<C, M>> bySignature = new LinkedHashMap<>();
        for (C c = beanClass; c != null && !model.className(c).equals("java.lang.Object"); c = model.superclass(c)) {
            for (M m : model.declaredMethods(c)) {
                if (model.isBridgeOrSynthetic(m)) {
                    continue;
                }
                String signature = model.methodName(m) + model.parameterTypeNames(m);
                if (model.isStatic(m) || model.isPrivate(m)) {
                    signature = model.className(c) + "#" + signature; // overrides nothing: each on its own
                }
                bySignature.putIfAbsent(signature, new Declared<>(c, m)); // subclasses first: the most specific wins
            }
        }
        return new ArrayList<>(bySignature.values());
    }

    /** A method and the class that declares it. */
    private record Declared<C, M>(C in, M method) {}
}
