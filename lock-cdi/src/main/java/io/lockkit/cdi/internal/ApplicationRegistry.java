package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LockFactoryHolder} of each running application, by the application's class loader, for
 * beans a container may place where lock-cdi's beans are not visible.
 */
// Design notes.
// - Synthetic bean lookups: some containers (Payara) resolve the synthetic factory bean's lookups in
//   a bean archive that cannot see this jar's beans, so each holder also registers itself for the
//   context class loader (the deployment's) that starts it, for LockkitExtension.OwnFactory to find.
// - A holder leaves the registry when it closes: the map must not keep an undeployed application's
//   class loader alive.
final class ApplicationRegistry {

    private static final Map<ClassLoader, LockFactoryHolder> BY_LOADER = new ConcurrentHashMap<>();

    private ApplicationRegistry() {}

    /**
     * Registers {@code holder} for the current context class loader (the application's) unless one is
     * registered there already.
     *
     * @return the loader it is registered for, to {@link #unregister} with; null without a context class loader
     */
    static @Nullable ClassLoader register(LockFactoryHolder holder) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader != null) {
            BY_LOADER.putIfAbsent(loader, holder);
        }
        return loader;
    }

    /** Removes {@code holder}'s registration for {@code loader}, if it is still the one registered. */
    static void unregister(ClassLoader loader, LockFactoryHolder holder) {
        BY_LOADER.remove(loader, holder);
    }

    /** The library's own factory, for its factory bean: the holder's of the application {@code lookup} belongs to. */
    static DistributedLockFactory ownFactory(Instance<Object> lookup) {
        return find(lookup).own();
    }

    /**
     * The holder of this application: found through {@code lookup}, else the one registered for the
     * current application (its context class loader, or the class loader of lock-cdi's own classes,
     * which in a WAR's {@code WEB-INF/lib} is the application's), else through {@code CDI.current()}.
     */
    static LockFactoryHolder find(Instance<Object> lookup) {
        Instance<LockFactoryHolder> holder = lookup.select(LockFactoryHolder.class);
        if (holder.isResolvable()) {
            return holder.get();
        }
        LockFactoryHolder registered = forCurrentApplication();
        if (registered == null) {
            registered = BY_LOADER.get(LockFactoryHolder.class.getClassLoader());
        }
        if (registered != null) {
            return registered;
        }
        return CDI.current().select(LockFactoryHolder.class).get();
    }

    /** The holder of the application whose context class loader is current, or null. */
    static @Nullable LockFactoryHolder forCurrentApplication() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return loader == null ? null : BY_LOADER.get(loader);
    }
}
