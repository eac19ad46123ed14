package io.lockkit.cdi.internal;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.ProviderEnvironment;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanContainer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * What a CDI application offers the provider lock-cdi builds: the container's managed thread
 * factory, resources by name ({@code @Named} beans, else JNDI), the application's {@code @Default} beans, and JTA suspension
 * of the caller's transaction around every provider call.
 */
// Design notes.
// - Start-up deferral: on Quarkus an application's DataSource (and other resources it produces) is
//   not usable before the CDI 4 Startup event. A provider that asks for a default bean while the
//   application starts (at @Initialized(ApplicationScoped)) is not built then: the request throws
//   NeedsStartedApplication, and the holder builds and checks it at the Startup event instead.
final class CdiProviderEnvironment implements ProviderEnvironment {

    /** Thrown while the application starts when the provider needs one of its beans: build it at the Startup event. */
    static final class NeedsStartedApplication extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NeedsStartedApplication() {
            super(
                    "the provider needs an application bean; it is built once the application has started",
                    null,
                    false,
                    false);
        }

        /**
         * Whether {@code e} is this or was caused by it: a container may wrap what a bean's creation
         * threw (ArC's {@code CreationException} around the synthetic factory bean's).
         */
        static boolean causes(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof NeedsStartedApplication) {
                    return true;
                }
            }
            return false;
        }
    }

    private final Instance<Object> beans;
    private final @Nullable ThreadFactory container;
    private final String threadPrefix;
    private final boolean starting;

    /**
     * @param container the container's managed thread factory, or null without one
     * @param threadPrefix the name prefix of the provider's threads ({@code lockkit-redis})
     * @param starting whether the application is still starting (a default bean makes the build wait)
     */
    CdiProviderEnvironment(
            Instance<Object> beans, @Nullable ThreadFactory container, String threadPrefix, boolean starting) {
        this.beans = beans;
        this.container = container;
        this.threadPrefix = threadPrefix;
        this.starting = starting;
    }

    @Override
    public Optional<ThreadFactory> threadFactory() {
        return container == null ? Optional.empty() : Optional.of(ManagedThreads.named(container, threadPrefix));
    }

    /**
     * The application's bean of {@code type} qualified {@code @Named(name)} (Quarkus' named
     * datasources are such beans), else what JNDI binds to {@code name}.
     */
    @Override
    @SuppressWarnings("BanJNDI") // looks up a name the application configured, never request input
    public <T> Optional<T> resource(Class<T> type, String name) {
        // The container's lookup by qualifiers: beans.select would also require @Default, which a bean
        // with another qualifier beside @Named (Quarkus' @DataSource("name")) does not have.
        BeanContainer container = beans.select(BeanContainer.class).get();
        Set<Bean<?>> named = container.getBeans(type, NamedLiteral.of(name));
        if (!named.isEmpty()) {
            Bean<?> bean = container.resolve(named);
            if (starting) {
                throw new NeedsStartedApplication();
            }
            return Optional.of(type.cast(container.getReference(bean, type, container.createCreationalContext(bean))));
        }
        Object found;
        try {
            found = new javax.naming.InitialContext().lookup(name);
        } catch (javax.naming.NamingException e) {
            throw new IllegalStateException(
                    "no @Named(\"" + name + "\") " + type.getName() + " bean, and JNDI: " + e, e);
        }
        if (!type.isInstance(found)) {
            throw new IllegalStateException("it names a "
                    + (found == null ? "null" : found.getClass().getName()) + ", not a " + type.getName());
        }
        return Optional.of(type.cast(found));
    }

    /** The application's one {@code @Default} bean of {@code type}; several are an error naming them. */
    @Override
    public <T> Optional<T> defaultInstance(Class<T> type) {
        Instance<T> candidates = beans.select(type);
        if (candidates.isAmbiguous()) {
            List<String> found = new ArrayList<>();
            candidates.handles().forEach(h -> found.add(h.getBean().toString()));
            throw new IllegalStateException(
                    "several @Default " + type.getName() + " beans: " + String.join(", ", found));
        }
        if (!candidates.isResolvable()) {
            return Optional.empty();
        }
        if (starting) {
            throw new NeedsStartedApplication();
        }
        return Optional.of(candidates.get());
    }

    /** Every call of {@code provider} on an application thread runs with the caller's JTA transaction suspended. */
    @Override
    public LockProvider outsideTransactions(LockProvider provider) {
        return Transactions.suspending(provider, beans);
    }
}
