package io.lockkit.spring.internal;

import io.lockkit.cdi.internal.engine.LockedMethod;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * Runs a {@code @Locked} method's call through lock-cdi's engine ({@link LockedMethod}): the lock
 * name from its template, the wait or busy policy, {@code holdAtLeast}, the release at the end of
 * a Spring-managed transaction, and the release when an asynchronous result completes. Thread-safe.
 */
// Design notes.
// - An asynchronous method proceeds later, on the thread that completes the acquisition, and a Mono
//   or Flux once per subscription: each proceed runs on a clone of the invocation (Spring's
//   invocableClone), so the proxy's interceptor chain can be walked again from where this one is.
// - The machinery (SpringLockkit) is looked up at the first call, not when the advisor is made: the
//   advisor exists before most beans, and the factory may need the application's DataSource.
final class LockedInterceptor implements MethodInterceptor {

    private final LockedAdvisor advisor;
    private final Supplier<SpringLockkit> lockkitSupplier;
    private volatile @Nullable SpringLockkit lockkit;

    LockedInterceptor(LockedAdvisor advisor, Supplier<SpringLockkit> lockkit) {
        this.advisor = advisor;
        this.lockkitSupplier = lockkit;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null
                ? AopUtils.getTargetClass(target)
                : invocation.getMethod().getDeclaringClass();
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass);
        LockedMethod locked = advisor.locked(method, targetClass);
        SpringLockkit kit = lockkit();
        return locked.invoke(
                kit.lockedFactory(),
                invocation.getArguments(),
                () -> proceed(invocation),
                kit.transactions(),
                kit.outage());
    }

    private SpringLockkit lockkit() {
        SpringLockkit kit = lockkit;
        if (kit == null) {
            kit = lockkitSupplier.get();
            lockkit = kit;
        }
        return kit;
    }

    private static @Nullable Object proceed(MethodInvocation invocation) throws Exception {
        MethodInvocation call =
                invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : invocation;
        try {
            return call.proceed();
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new UndeclaredThrowableException(t);
        }
    }
}
