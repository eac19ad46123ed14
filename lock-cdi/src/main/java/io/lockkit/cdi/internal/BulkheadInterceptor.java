package io.lockkit.cdi.internal;

import io.lockkit.cdi.DistributedBulkhead;
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
 * The {@link DistributedBulkhead} interceptor: the {@link LockedInterceptor}'s twin over the same
 * engine, holding permits of the name's semaphore instead of its lock. Enabled by its priority,
 * {@link DistributedBulkhead#PRIORITY}, inside {@code @Locked} and outside {@code @Transactional}.
 */
@DistributedBulkhead(capacity = 1)
@Interceptor
@Priority(DistributedBulkhead.PRIORITY)
public class BulkheadInterceptor implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    // A client proxy of an @ApplicationScoped bean: serializable whatever the declared type says.
    @SuppressWarnings("serial")
    @Inject
    LockFactoryHolder holder;

    @AroundInvoke
    public @Nullable Object hold(InvocationContext context) throws Exception {
        Method method = context.getMethod();
        LockedMethod bulkhead =
                holder.method(method, InterceptorBindings.inForce(context, method, DistributedBulkhead.class));
        return bulkhead.invoke(
                holder.factory(), context.getParameters(), context::proceed, holder.transactions(), holder.outage());
    }

    /** An EJB timer's call of a timeout method, as a business method call. */
    @AroundTimeout
    public @Nullable Object holdTimeout(InvocationContext context) throws Exception {
        return hold(context);
    }
}
