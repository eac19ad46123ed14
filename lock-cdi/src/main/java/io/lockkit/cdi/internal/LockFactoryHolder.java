package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockOptions;
import io.lockkit.cdi.Locked;
import io.lockkit.spi.LockProvider;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.lang.reflect.Method;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;

/**
 * The application's lock machinery: the factory {@code @Locked} uses, the library's own factory
 * (built lazily from configuration, closed at shutdown) and the per-method cache. A plain
 * discovered bean, so {@code @Locked} works without any extension.
 */
// Design notes.
// - Which factory: the application's DistributedLockFactory bean if it has one (ours, the synthetic
//   bean LockkitExtension adds when it has none, resolves back to own()); without the extension,
//   own() directly. Resolved once: a @Dependent application factory is obtained once, not per call.
// - own() is built on first use, not at startup, so an application that replaces the factory, or
//   never locks, opens no Redis connection; and configuration errors name the key at first use.
@ApplicationScoped
public class LockFactoryHolder {

    private static final System.Logger LOG = System.getLogger(LockFactoryHolder.class.getName());

    @Inject
    Instance<DistributedLockFactory> factories;

    @Inject
    Instance<LockProvider> providers;

    @Inject
    Instance<ThreadFactory> threadFactories;

    private final ConcurrentHashMap<MethodKey, Object> methods = new ConcurrentHashMap<>();
    private volatile DistributedLockFactory resolved;
    private volatile DistributedLockFactory own;
    private boolean closed;

    private record MethodKey(Method method, Locked binding) {
    }

    /** The factory {@code @Locked} methods lock with. */
    public DistributedLockFactory factory() {
        DistributedLockFactory f = resolved;
        if (f != null) {
            return f;
        }
        synchronized (this) {
            if (resolved == null) {
                if (factories.isAmbiguous()) {
                    throw new IllegalStateException("several DistributedLockFactory beans qualify for @Locked; keep one"
                            + " with the @Default qualifier");
                }
                resolved = factories.isResolvable() ? factories.get() : own();
            }
            return resolved;
        }
    }

    /** The checked {@code @Locked} method; a declaration error is thrown again on every call. */
    public LockedMethod method(Method method, Locked binding) {
        Object m = methods.computeIfAbsent(new MethodKey(method, binding), k -> {
            try {
                return LockedMethod.of(k.method(), k.binding());
            } catch (IllegalStateException e) {
                return e;
            }
        });
        if (m instanceof IllegalStateException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        return (LockedMethod) m;
    }

    /** The library's own factory, over the application's LockProvider bean or one built from configuration. */
    public synchronized DistributedLockFactory own() {
        if (closed) {
            throw new IllegalStateException("the lockkit CDI integration was shut down");
        }
        if (own == null) {
            own = build(LockkitConfig.load());
        }
        return own;
    }

    private DistributedLockFactory build(LockkitConfig config) {
        ThreadFactory threads = ManagedThreads.find(threadFactories);
        LockProvider provider;
        if (providers.isAmbiguous()) {
            throw new IllegalStateException("several LockProvider beans with the @Default qualifier; keep one");
        }
        if (providers.isResolvable()) {
            // Closed with the factory, which owns its provider; a @Dependent one is destroyed with this bean.
            provider = providers.get();
        } else {
            String kind = config.string(LockkitConfig.PROVIDER).orElse("redis").toLowerCase(Locale.ROOT);
            provider = switch (kind) {
                case "redis" -> {
                    requireJedis();
                    yield RedisProviders.create(config, threads);
                }
                case "local" -> new LocalLockProvider();
                default -> throw config.invalid(LockkitConfig.PROVIDER, kind, "expected redis or local");
            };
        }
        DistributedLockFactory.Builder b = DistributedLockFactory.builder(provider);
        try {
            config.duration(LockkitConfig.WATCHDOG_LEASE).ifPresent(lease ->
                    b.defaultOptions(LockOptions.builder().watchdogLease(lease).build()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(LockkitConfig.WATCHDOG_LEASE + " (from " + config.origin() + "): "
                    + e.getMessage(), e);
        }
        if (threads != null) {
            b.threadFactory(threads);
        }
        LOG.log(System.Logger.Level.INFO, "lockkit: DistributedLockFactory over {0}{1}", provider,
                threads != null ? " with the container's ManagedThreadFactory" : "");
        return b.build();
    }

    private static void requireJedis() {
        try {
            Class.forName("io.lockkit.jedis.JedisLockProvider", false, LockFactoryHolder.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(LockkitConfig.PROVIDER + "=redis (the default) needs io.lockkit:lock-jedis"
                    + " on the class path; add it, set " + LockkitConfig.PROVIDER + "=local for a single process,"
                    + " or produce a LockProvider or DistributedLockFactory bean", e);
        }
    }

    @PreDestroy
    synchronized void close() {
        closed = true;
        if (own != null) {
            own.close();
            own = null;
        }
    }
}
