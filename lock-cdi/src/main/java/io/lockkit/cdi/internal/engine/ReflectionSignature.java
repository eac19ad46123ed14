package io.lockkit.cdi.internal.engine;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** {@link SignatureModel} over reflection; properties carry the {@link Method} to call. */
public final class ReflectionSignature implements SignatureModel<Class<?>> {

    private final Method method;
    private final Parameter[] parameters;

    ReflectionSignature(Method method) {
        this.method = method;
        this.parameters = method.getParameters();
    }

    public static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    @Override
    public String describe() {
        return describe(method);
    }

    @Override
    public int parameterCount() {
        return parameters.length;
    }

    @Override
    public List<String> parameterNames() {
        return Arrays.stream(parameters).map(Parameter::getName).toList();
    }

    @Override
    public boolean parameterNamesKnown() {
        return parameters.length == 0 || parameters[0].isNamePresent();
    }

    @Override
    public Class<?> parameterType(int index) {
        return parameters[index].getType();
    }

    @Override
    public @Nullable Property<Class<?>> property(Class<?> type, String name) {
        if (type.isPrimitive() || type.isArray()) {
            return null;
        }
        if (type.isRecord()) {
            for (RecordComponent component : type.getRecordComponents()) {
                if (component.getName().equals(name)) {
                    return property(name, component.getAccessor());
                }
            }
        }
        List<String> names = SignatureModel.accessorNames(name);
        for (int i = 0; i < names.size(); i++) {
            Method accessor = accessor(type, names.get(i));
            if (accessor != null
                    && (i != 1
                            || accessor.getReturnType() == boolean.class
                            || accessor.getReturnType() == Boolean.class)) {
                return property(name, accessor);
            }
        }
        return null;
    }

    private static Property<Class<?>> property(String name, Method accessor) {
        // Accessors of non-public classes (a package-private record, say) need this to be called
        // from here; on the class path it always succeeds.
        accessor.trySetAccessible();
        return new Property<>(name, accessor.getReturnType(), accessor);
    }

    /** A public no-argument instance method of that name, else a declared one up the superclasses. */
    private static @Nullable Method accessor(Class<?> type, String name) {
        try {
            Method m = type.getMethod(name);
            if (usable(m)) {
                return m;
            }
        } catch (NoSuchMethodException e) {
            // look at non-public ones below
        }
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == 0 && usable(m)) {
                    return m;
                }
            }
        }
        return null;
    }

    private static boolean usable(Method m) {
        return !Modifier.isStatic(m.getModifiers())
                && m.getReturnType() != void.class
                && !m.isBridge()
                && m.getDeclaringClass() != Object.class;
    }

    @Override
    public boolean unstableString(Class<?> type) {
        return type.isArray();
    }

    @Override
    public String typeName(Class<?> type) {
        return type.getTypeName();
    }

    @Override
    public String returnTypeName() {
        return method.getReturnType().getName();
    }

    @Override
    public @Nullable String returnTypeArgumentName() {
        Type generic = method.getGenericReturnType();
        if (generic instanceof ParameterizedType p && p.getActualTypeArguments().length == 1) {
            Type argument = p.getActualTypeArguments()[0];
            if (argument instanceof ParameterizedType pa) {
                argument = pa.getRawType();
            }
            if (argument instanceof Class<?> c) {
                return c.getName();
            }
        }
        return null;
    }

    @Override
    public boolean returnsPlainFuture() {
        Class<?> r = method.getReturnType();
        return Future.class.isAssignableFrom(r) && !CompletionStage.class.isAssignableFrom(r);
    }

    @Override
    public boolean returnsCompletionStage() {
        return CompletionStage.class.isAssignableFrom(method.getReturnType());
    }
}
