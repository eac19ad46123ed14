package io.lockkit.cdi.internal;

import io.lockkit.cdi.Locked;
import io.lockkit.cdi.internal.engine.LockedMethod;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.AroundTimeout;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.io.Serial;
import java.io.Serializable;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Locked} interceptor: finds the method's cached {@link LockedMethod} and the factory,
 * and lets the former run the call. Enabled by its priority, {@link Locked#PRIORITY}, which puts
 * it outside {@code @Transactional}. Business methods and EJB timeout methods ({@code @Schedule},
 * {@code @Timeout}) alike: the Interceptors specification calls a binding's interceptors for a
 * timeout method through {@code @AroundTimeout} only.
 */
@Locked
@Interceptor
@Priority(Locked.PRIORITY)
public class LockedInterceptor implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    // A client proxy of an @ApplicationScoped bean: serializable whatever the declared type says.
    @SuppressWarnings("serial")
    @Inject
    LockFactoryHolder holder;

    @AroundInvoke
    public @Nullable Object lock(InvocationContext context) throws Exception {
        Method method = context.getMethod();
        LockedMethod locked = holder.method(method, InterceptorBindings.inForce(context, method, Locked.class));
        return locked.invoke(
                holder.factory(), context.getParameters(), context::proceed, holder.transactions(), holder.outage());
    }

    /**
     * A timer's call of an EJB timeout method ({@code @Schedule}, {@code @Timeout}) under the
     * method's {@code @Locked}, exactly as a business method call: templates over the timeout
     * method's parameters (its {@code Timer}), {@code holdAtLeast}, the busy policy. Containers
     * without EJB timers (CDI SE, Quarkus) never call it.
     */
    @AroundTimeout
    public @Nullable Object lockTimeout(InvocationContext context) throws Exception {
        return lock(context);
    }
}
