package io.lockkit.spring.internal;

import io.lockkit.cdi.DistributedBulkhead;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.internal.engine.LockedMethod;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * The advisor that puts {@code @Locked} and {@code @DistributedBulkhead} methods of Spring beans under
 * their lock: a method annotated itself, or declared in a class annotated (the method's own
 * annotation wins), as in CDI. Its order decides where it runs relative to other advice such as
 * {@code @Transactional}'s (outside it by default). Thread-safe.
 */
// Design notes.
// - The declaration is checked when the pointcut first matches a method, which Spring does while it
//   creates the bean's proxy at start: a bad name template fails the context's start with lock-cdi's
//   message naming the method, not the first call.
// - The checked LockedMethod is cached per method and binding; the interceptor (LockedInterceptor)
//   finds it here.
public final class LockedAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient ConcurrentHashMap<Method, LockedMethod> methods = new ConcurrentHashMap<>();
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
            if (binding(specific, targetClass) == null) {
                return false;
            }
            locked(specific, targetClass); // checks the declaration now: a bad one fails the start
            return true;
        }
    };
    private final transient Advice advice;

    /** An advisor at {@code order} whose interceptor takes its lockkit machinery from {@code lockkit} at the first call. */
    public LockedAdvisor(int order, Supplier<SpringLockkit> lockkit) {
        setOrder(order);
        this.advice = new LockedInterceptor(this, lockkit);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }

    /**
     * The checked method for {@code method} of {@code targetClass}.
     *
     * @throws IllegalStateException naming the method when its declaration cannot work
     */
    LockedMethod locked(Method method, Class<?> targetClass) {
        return methods.computeIfAbsent(method, m -> {
            Annotation binding = Objects.requireNonNull(binding(m, targetClass), "binding");
            return binding instanceof DistributedBulkhead bulkhead
                    ? LockedMethod.of(m, bulkhead)
                    : LockedMethod.of(m, (Locked) binding);
        });
    }

    /** The binding in force: the method's own {@code @Locked} or {@code @DistributedBulkhead}, else its class's. */
    static @Nullable Annotation binding(Method method, Class<?> targetClass) {
        if (Modifier.isStatic(method.getModifiers()) || method.getDeclaringClass() == Object.class) {
            return null;
        }
        Annotation own = annotation(method);
        if (own != null) {
            return own;
        }
        Annotation onClass = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), Locked.class);
        if (onClass == null) {
            onClass = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), DistributedBulkhead.class);
        }
        return onClass;
    }

    private static @Nullable Annotation annotation(Method method) {
        Locked locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
        return locked != null ? locked : AnnotatedElementUtils.findMergedAnnotation(method, DistributedBulkhead.class);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return this == other;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
