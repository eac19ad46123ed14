package io.lockkit.cdi.internal.engine;

import io.lockkit.cdi.DistributedBulkhead;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.Locked;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** {@link DeclarationModel} over reflection, for the portable extension. */
public final class ReflectionDeclarations implements DeclarationModel<Class<?>, Method, Annotation> {

    /** The one instance: the model holds no state. */
    public static final ReflectionDeclarations INSTANCE = new ReflectionDeclarations();

    private ReflectionDeclarations() {}

    @Override
    public String className(Class<?> type) {
        return type.getName();
    }

    @Override
    public @Nullable Class<?> superclass(Class<?> type) {
        return type.getSuperclass();
    }

    @Override
    public Collection<Method> declaredMethods(Class<?> type) {
        return Arrays.asList(type.getDeclaredMethods());
    }

    @Override
    public String methodName(Method method) {
        return method.getName();
    }

    @Override
    public List<String> parameterTypeNames(Method method) {
        return Arrays.stream(method.getParameterTypes()).map(Class::getTypeName).toList();
    }

    @Override
    public boolean isStatic(Method method) {
        return Modifier.isStatic(method.getModifiers());
    }

    @Override
    public boolean isPrivate(Method method) {
        return Modifier.isPrivate(method.getModifiers());
    }

    @Override
    public boolean isBridgeOrSynthetic(Method method) {
        return method.isBridge() || method.isSynthetic();
    }

    @Override
    public Collection<Annotation> classAnnotations(Class<?> type) {
        return Arrays.asList(type.getDeclaredAnnotations());
    }

    @Override
    public Collection<Annotation> methodAnnotations(Method method) {
        return Arrays.asList(method.getDeclaredAnnotations());
    }

    @Override
    public String annotationName(Annotation annotation) {
        return annotation.annotationType().getName();
    }

    @Override
    public Class<?> annotationType(Annotation annotation) {
        return annotation.annotationType();
    }

    @Override
    public LockedValues lockedValues(Annotation locked) {
        return locked instanceof DistributedBulkhead bulkhead
                ? LockedValues.of(bulkhead)
                : LockedValues.of((Locked) locked);
    }

    @Override
    public String leaderOfName(Annotation leaderOf) {
        return ((LeaderOf) leaderOf).value();
    }

    @Override
    public SignatureModel<?> signature(Method method) {
        return new ReflectionSignature(method);
    }
}
