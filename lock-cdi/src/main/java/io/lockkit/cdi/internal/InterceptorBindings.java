package io.lockkit.cdi.internal;

import jakarta.interceptor.InvocationContext;

import jakarta.enterprise.inject.Stereotype;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.HashSet;
import java.util.Set;

/**
 * Reads an interceptor binding through Interceptors 2.2's {@code InvocationContext.getInterceptorBinding}
 * where the container has it (Jakarta EE 11: it also sees bindings from stereotypes), and answers
 * null on Jakarta EE 10 containers (Interceptors 2.1), where callers read the annotations themselves.
 */
// Design notes.
// - lock-cdi compiles against the EE 10 API, which lacks the method, so a direct call cannot even be
//   written; and on an EE 10 server a call compiled against the EE 11 API is a NoSuchMethodError at
//   every invocation. The method is looked up once, by the API's own class loader's view, per
//   InvocationContext API class (a server has one; tests may see two), and called through a handle.
// - An EE 11 API jar on an EE 10 container's implementation is possible too (an application that
//   packs the API jar): the call then fails with AbstractMethodError or UnsupportedOperationException,
//   which is answered as "not available" and remembered for that implementation class.
final class InterceptorBindings {

    private static final System.Logger LOG = System.getLogger(InterceptorBindings.class.getName());

    private static final ClassValue<MethodHandle> GET_BINDING = new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> api) {
            try {
                return MethodHandles.publicLookup().findVirtual(api, "getInterceptorBinding",
                        MethodType.methodType(Annotation.class, Class.class));
            } catch (NoSuchMethodException | IllegalAccessException e) {
                return null; // Interceptors 2.1 (Jakarta EE 10)
            }
        }
    };

    /** Implementation classes whose getInterceptorBinding turned out not to work. */
    private static final ClassValue<boolean[]> UNSUPPORTED = new ClassValue<>() {
        @Override
        protected boolean[] computeValue(Class<?> type) {
            return new boolean[1];
        }
    };

    private InterceptorBindings() {
    }

    /** Whether this container's {@code InvocationContext} has {@code getInterceptorBinding} (EE 11). */
    static boolean available() {
        return GET_BINDING.get(InvocationContext.class) != null;
    }

    /** The binding of {@code type} in force for this invocation, or null when the container cannot say. */
    static <A extends Annotation> A find(InvocationContext context, Class<A> type) {
        MethodHandle getBinding = GET_BINDING.get(InvocationContext.class);
        boolean[] unsupported = UNSUPPORTED.get(context.getClass());
        if (getBinding == null || unsupported[0]) {
            return null;
        }
        try {
            return type.cast((Annotation) getBinding.invoke(context, type));
        } catch (UnsupportedOperationException | AbstractMethodError | NoSuchMethodError e) {
            unsupported[0] = true; // benign race: at worst a few calls find out again
            LOG.log(System.Logger.Level.DEBUG, () -> "lockkit: " + context.getClass().getName()
                    + " does not implement getInterceptorBinding; reading @Locked from the method", e);
            return null;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("getInterceptorBinding failed", e);
        }
    }

    /**
     * The binding of {@code type} declared on {@code element}: directly, or carried by a stereotype
     * on it (stereotypes may carry stereotypes); null when there is none.
     */
    static <A extends Annotation> A declared(AnnotatedElement element, Class<A> type) {
        A direct = element.getAnnotation(type);
        return direct != null ? direct : throughStereotypes(element.getAnnotations(), type, new HashSet<>());
    }

    private static <A extends Annotation> A throughStereotypes(Annotation[] annotations, Class<A> type,
            Set<Class<?>> seen) {
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
