package io.lockkit.cdi.internal;

import io.lockkit.cdi.DistributedBulkhead;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.internal.engine.LockedMethod;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** An application's checked {@code @Locked} and {@code @DistributedBulkhead} methods, each checked once per method and binding. */
final class LockedMethods {

    private final ConcurrentHashMap<MethodKey, Object> methods = new ConcurrentHashMap<>();

    private record MethodKey(Method method, Annotation binding) {
        // Written out: a record's generated equals/hashCode goes through java.lang.runtime.ObjectMethods,
        // whose cache on JDK 17 keeps the class, and with it a Jakarta EE application's class
        // loader, alive after undeploy.
        @Override
        public boolean equals(Object o) {
            return o instanceof MethodKey other && method.equals(other.method) && binding.equals(other.binding);
        }

        @Override
        public int hashCode() {
            return Objects.hash(method, binding);
        }
    }

    /** The checked {@code @Locked} or {@code @DistributedBulkhead} method; a declaration error is thrown again on every call. */
    LockedMethod get(Method method, Annotation binding) {
        Object m = methods.computeIfAbsent(new MethodKey(method, binding), k -> {
            try {
                return k.binding() instanceof DistributedBulkhead bulkhead
                        ? LockedMethod.of(k.method(), bulkhead)
                        : LockedMethod.of(k.method(), (Locked) k.binding());
            } catch (IllegalStateException e) {
                return e;
            }
        });
        if (m instanceof IllegalStateException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        return (LockedMethod) m;
    }
}
