package io.lockkit.cdi.internal;

import io.lockkit.cdi.internal.engine.ReflectionSignature;
import jakarta.enterprise.inject.Stereotype;
import jakarta.interceptor.InvocationContext;
import java.lang.annotation.Annotation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads an interceptor binding through Interceptors 2.2's {@code InvocationContext.getInterceptorBinding}
 * where the container has it (Jakarta EE 11: it also sees bindings from stereotypes), and answers
 * null on Jakarta EE 10 containers (Interceptors 2.1), where callers read the annotations themselves.
 */
// Design notes.
// - lock-cdi compiles against the EE 10 API, which lacks the method, so a direct call cannot even be
//   written; and on an EE 10 server a call compiled against the EE 11 API is a NoSuchMethodError at
//   every invocation. The method is looked up once on the InvocationContext API this class sees and
//   called through a handle.
// - An EE 11 API jar on an EE 10 container's implementation is possible too (an application that
//   packs the API jar): the call then fails with AbstractMethodError or UnsupportedOperationException,
//   which is answered as "not available" and remembered.
// - No ClassValue keyed by the container's classes: its entry would live in the server's class and
//   keep this application's class loader alive after undeploy. Plain static fields of this class
//   go away with the application.
final class InterceptorBindings {

    private static final System.Logger LOG = System.getLogger(InterceptorBindings.class.getName());

    /** {@code InvocationContext.getInterceptorBinding(Class)}, or null on Interceptors 2.1 (Jakarta EE 10). */
    private static final @Nullable MethodHandle GET_BINDING = lookUpGetBinding();

    /** Set once the container's implementation turned out not to support the method. */
    private static volatile boolean unsupported;

    private static @Nullable MethodHandle lookUpGetBinding() {
        try {
            return MethodHandles.publicLookup()
                    .findVirtual(
                            InvocationContext.class,
                            "getInterceptorBinding",
                            MethodType.methodType(Annotation.class, Class.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }

    private InterceptorBindings() {}

    /** The binding of {@code type} in force for this invocation, or null when the container cannot say. */
    static <A extends Annotation> @Nullable A find(InvocationContext context, Class<A> type) {
        if (GET_BINDING == null || unsupported) {
            return null;
        }
        try {
            return type.cast((Annotation) GET_BINDING.invoke(context, type));
        } catch (UnsupportedOperationException | AbstractMethodError | NoSuchMethodError e) {
            unsupported = true; // benign race: at worst a few calls find out again
            LOG.log(
                    System.Logger.Level.DEBUG,
                    () -> "lockkit: " + context.getClass().getName()
                            + " does not implement getInterceptorBinding; reading @Locked from the method",
                    e);
            return null;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("getInterceptorBinding failed", e);
        }
    }

    /**
     * The binding of {@code type} in force for this invocation of {@code method}: what the container
     * says (Jakarta EE 11), else the method's, else the class's, directly or through a stereotype
     * (Jakarta EE 10 containers cannot say).
     *
     * @throws IllegalStateException when no such binding is visible
     */
    static <A extends Annotation> A inForce(InvocationContext context, Method method, Class<A> type) {
        A binding = find(context, type);
        if (binding == null) {
            binding = declared(method, type);
        }
        if (binding == null && context.getTarget() != null) {
            // The bindings are @Inherited, so the container's subclass of the bean class sees them too.
            binding = declared(context.getTarget().getClass(), type);
        }
        if (binding == null) {
            binding = declared(method.getDeclaringClass(), type);
        }
        if (binding == null) {
            String name = "@" + type.getSimpleName();
            throw new IllegalStateException(name + " interceptor called for " + ReflectionSignature.describe(method)
                    + " but no " + name + " binding is visible on it or its class");
        }
        return binding;
    }

    /**
     * The binding of {@code type} declared on {@code element}: directly, or carried by a stereotype
     * on it (stereotypes may carry stereotypes); null when there is none.
     */
    static <A extends Annotation> @Nullable A declared(AnnotatedElement element, Class<A> type) {
        A direct = element.getAnnotation(type);
        return direct != null ? direct : throughStereotypes(element.getAnnotations(), type, new HashSet<>());
    }

    private static <A extends Annotation> @Nullable A throughStereotypes(
            Annotation[] annotations, Class<A> type, Set<Class<?>> seen) {
        for (Annotation annotation : annotations) {
            Class<? extends Annotation> stereotype = annotation.annotationType();
            if (!stereotype.isAnnotationPresent(Stereotype.class) || !seen.add(stereotype)) {
                continue;
            }
            A found = stereotype.getAnnotation(type);
            if (found == null) {
                found = throughStereotypes(stereotype.getAnnotations(), type, seen);
            }
            if (found != null) {
                return found;
            }
        }
        return null;
    }
}
