package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.LeadershipOptions;
import io.lockkit.LocalLockProvider;
import io.lockkit.LockOptions;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.LeadershipGranted;
import io.lockkit.cdi.LeadershipRevoked;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.internal.engine.LockedMethod;
import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.cdi.internal.engine.RedisProviders;
import io.lockkit.cdi.internal.engine.TransactionCompletion;
import io.lockkit.spi.LockProvider;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Reception;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.inject.Inject;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * The application's lock machinery: the factory {@code @Locked} uses, the library's own factory
 * (built and checked at application start, drained and closed at shutdown), the transaction
 * support and the per-method cache. A plain discovered bean, so {@code @Locked} works without any
 * extension.
 */
// Design notes.
// - Which factory: the application's DistributedLockFactory bean if it has one (ours, the synthetic
//   bean LockkitExtension adds when it has none, resolves back to own()); without the extension,
//   own() directly. Resolved once: a @Dependent application factory is obtained once, not per call.
// - Fail fast: at @Initialized(ApplicationScoped) the factory is built and the backend asked one
//   read-only question, so a wrong URI or a stopped Redis fails the deployment with a message naming
//   the key and where its value came from, not the first user request. lockkit.startup=lazy defers
//   this to the first use (an application that must start while its Redis is down). On the
//   application's DataSource bean (lockkit.provider=jdbc without URL or JNDI name) the check runs at
//   the CDI 4 Startup event instead: Quarkus' datasources are not usable before it.
// - Start-up never waits for a managed thread to run: Open Liberty runs no managed thread of an
//   application before its initialization is over. The container's thread factory is found and the
//   thread maker made at start (on the starting thread, also for lockkit.startup=lazy, so no
//   request's context reaches them); threads needed during the start are made on the starting
//   thread itself (ManagedThreads.ContextFreeThreads), the backend check runs on it too.
// - Undeploy: the own factory closes with a drain (lockkit.drain-timeout), so a @Locked method still
//   running keeps its lock until it returns instead of handing it to another instance mid-call.
// - Synthetic bean lookups: some containers (Payara) resolve the synthetic factory bean's lookups in
//   a bean archive that cannot see this jar's beans, so the holder also registers itself per
//   context class loader (the deployment's) for LockkitExtension.OwnFactory to find.
// - Leaderships declared in configuration (lockkit.leadership.<name>.*) start right after the
//   start-up check (also under lockkit.startup=lazy, where they build the factory without the check:
//   a campaign waits for the backend by itself), on the factory @Locked uses. Their callbacks fire
//   LeadershipGranted/LeadershipRevoked through an injected Event, which CDI Full and Lite both
//   have; an observer's exception is logged, not passed to the leadership (which would step down
//   for an exception from onElected: one broken observer must not take the lead from the others).
//   They close at @BeforeDestroyed(ApplicationScoped), while the observers' beans still exist and
//   before the drain; @PreDestroy closes them too, for a container that did not fire it.
// - Metrics: with lock-micrometer on the class path and a MeterRegistry bean, the own factory
//   reports to it (MicrometerMetrics, loaded only then, like JdbcProviders for lock-jdbc).
@ApplicationScoped
public class LockFactoryHolder {

    /** How long undeploy waits for running {@code @Locked} methods unless {@code lockkit.drain-timeout} says otherwise. */
    static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

    private static final System.Logger LOG = System.getLogger(LockFactoryHolder.class.getName());
    private static final String STARTUP_CHECK_NAME = "lockkit-startup-check";
    private static final Map<ClassLoader, LockFactoryHolder> BY_LOADER = new ConcurrentHashMap<>();

    @Inject
    Instance<DistributedLockFactory> factories;

    @Inject
    Instance<LockProvider> providers;

    @Inject
    Instance<ThreadFactory> threadFactories;

    @Inject
    Instance<Object> beans;

    @Inject
    Event<Object> events;

    private final ConcurrentHashMap<MethodKey, Object> methods = new ConcurrentHashMap<>();
    private volatile @Nullable DistributedLockFactory resolved;
    private volatile @Nullable DistributedLockFactory own;
    private volatile @Nullable TransactionCompletion transactions;
    private @Nullable LockProvider ownProvider;
    private ManagedThreads.@Nullable ContextFreeThreads threadMaker;
    private @Nullable LockkitConfig ownConfig;
    private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
    /** The leaderships declared in configuration, by name, once started; guarded by this. */
    private final Map<String, Leadership> leaderships = new LinkedHashMap<>();
    /** The names the configuration declares, read at start (or at the first question); guarded by this. */
    private java.util.@Nullable Set<String> declared;
    /** Removes the own factory's meters from the application's registry (null: none made); guarded by this. */
    private @Nullable Runnable unbindMetrics;

    private @Nullable ClassLoader registeredFor;
    private volatile boolean startAtStartup;
    private boolean closed;
    /** Whether the container's thread factory was looked for (then threadMaker is null when it has none); guarded by this. */
    private boolean threadsFound;

    private record MethodKey(Method method, Locked binding) {
        // Written out: a record's generated equals/hashCode goes through java.lang.runtime.ObjectMethods,
        // whose cache on JDK 17 keeps the class, and with it a Jakarta EE application's class
        // loader, alive after undeploy.
        @Override
        public boolean equals(Object o) {
            return o instanceof MethodKey other && method.equals(other.method) && binding.equals(other.binding);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(method, binding);
        }
    }

    /**
     * The library's own factory, for its factory bean: the holder found through {@code lookup}, else
     * (Payara resolves an added bean's lookups where this jar's beans are not visible) the holder
     * registered for the current application, else through {@code CDI.current()}.
     */
    static DistributedLockFactory ownFactory(Instance<Object> lookup) {
        return find(lookup).own();
    }

    /**
     * The holder of this application: found through {@code lookup}, else the one registered for
     * the current application (its context class loader, or the class loader of lock-cdi's own
     * classes, which in a WAR's {@code WEB-INF/lib} is the application's), else through
     * {@code CDI.current()}. For beans that a container may place where this jar's beans are not
     * visible (Payara: beans added by an extension).
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

    /**
     * Application start: reports unknown {@code lockkit.*} keys, finds the transaction manager, and
     * unless {@code lockkit.startup=lazy} builds the factory and checks that its backend answers.
     *
     * @throws IllegalStateException (failing the deployment) naming the key to fix
     */
    void start(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        register();
        LockkitConfig config = LockkitConfig.load();
        config.unknownKeys()
                .forEach((key, meant) -> LOG.log(
                        System.Logger.Level.WARNING,
                        "lockkit: unknown configuration key {0} is ignored; did you mean {1}?",
                        key,
                        meant));
        config.leadershipNames(); // a misspelt leadership setting fails the start, before anything is built
        transactions();
        containerThreads();
        boolean over = true;
        try {
            String startup =
                    config.string(LockkitConfig.STARTUP).orElse("eager").toLowerCase(Locale.ROOT);
            switch (startup) {
                case "lazy" -> {
                    LOG.log(System.Logger.Level.DEBUG, "lockkit: lazy start; the factory is built at first use");
                    startLeaderships(config);
                }
                case "eager" -> {
                    if (onApplicationsDataSource(config)) {
                        // Quarkus initializes its datasources after @Initialized(ApplicationScoped): the
                        // check waits for the Startup event, which every CDI 4 container fires later.
                        LOG.log(System.Logger.Level.DEBUG, "lockkit: the start-up check waits for the Startup event");
                        startAtStartup = true;
                        over = false;
                    } else {
                        startEagerly();
                    }
                }
                default -> throw config.invalid(LockkitConfig.STARTUP, startup, "expected eager or lazy");
            }
        } catch (RuntimeException | Error e) {
            // A failed start fails the deployment, and not every server destroys the beans of an
            // application whose start failed: the thread maker and whatever was built go now.
            close();
            throw e;
        } finally {
            if (over) {
                startOver();
            }
        }
    }

    /** The eager start for the application's DataSource bean, once the container has started. */
    void started(@Observes jakarta.enterprise.event.Startup containerStarted) {
        try {
            if (startAtStartup) {
                startAtStartup = false;
                startEagerly();
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        } finally {
            startOver();
        }
    }

    /** The start is over: threads lockkit needs from now on are made by the thread maker. */
    private synchronized void startOver() {
        if (threadMaker != null) {
            threadMaker.started();
        }
    }

    /**
     * The container's managed thread factory wrapped in the thread maker, found and made once, at
     * application start when the start is observed; null without a managed thread factory.
     */
    private synchronized ManagedThreads.@Nullable ContextFreeThreads containerThreads() {
        if (!threadsFound && !closed) {
            threadsFound = true;
            ThreadFactory managed = ManagedThreads.find(threadFactories);
            threadMaker = managed == null ? null : ManagedThreads.contextFree(managed);
        }
        return threadMaker;
    }

    private void startEagerly() {
        // A method call makes the container create the bean behind the client proxy.
        factory().defaultOptions();
        check();
        startLeaderships(LockkitConfig.load());
    }

    /**
     * Starts a leadership for each name the configuration declares, on the factory {@code @Locked}
     * uses, whose callbacks fire {@link LeadershipGranted} and {@link LeadershipRevoked}.
     *
     * @throws IllegalArgumentException naming the key, for a bad value or a name that is no lock name
     */
    private void startLeaderships(LockkitConfig config) {
        java.util.Set<String> names = config.leadershipNames();
        synchronized (this) {
            declared = names;
        }
        for (String name : names) {
            String leaseKey = LockkitConfig.leadershipKey(LockkitConfig.LEADERSHIP_LEASE, name);
            String rejoinKey = LockkitConfig.leadershipKey(LockkitConfig.LEADERSHIP_REJOIN_DELAY, name);
            LeadershipOptions.Builder options = LeadershipOptions.builder()
                    .onElected(term -> fire(new LeadershipGranted(name, term), name))
                    .onRevoked((term, reason) -> fire(new LeadershipRevoked(name, term, reason), name));
            Leadership leadership;
            try {
                config.duration(leaseKey).ifPresent(options::lease);
                config.duration(rejoinKey).ifPresent(options::rejoinDelay);
                leadership = factory().leadership(name, options.build());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "lockkit: the leadership '" + name + "' (" + config.describe(leaseKey, "the watchdog lease")
                                + ", " + config.describe(rejoinKey, "the lease") + "): " + e.getMessage(),
                        e);
            }
            synchronized (this) {
                if (closed) {
                    leadership.close();
                    return;
                }
                leaderships.put(name, leadership);
            }
            leadership.start();
            LOG.log(System.Logger.Level.INFO, "lockkit: campaigning for the leadership {0}", name);
        }
    }

    /** Fires a leadership's event to its observers; what they throw is logged, not passed to the leadership. */
    private void fire(Object event, String name) {
        try {
            events.select(LeaderOf.Literal.of(name)).fire(event);
        } catch (RuntimeException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "lockkit: an observer of " + event + " threw; the leadership " + name + " is not affected",
                    e);
        }
    }

    /** Whether the configuration declares the leadership {@code name} (it may not have started yet). */
    synchronized boolean declaresLeadership(String name) {
        if (declared == null) {
            declared = LockkitConfig.load().leadershipNames();
        }
        return declared.contains(name);
    }

    /** The started leadership {@code name}, if the configuration declares it. */
    public synchronized java.util.Optional<Leadership> leadership(String name) {
        return java.util.Optional.ofNullable(leaderships.get(name));
    }

    /**
     * The application is about to stop: the declared leaderships step down ({@link LeadershipRevoked}
     * with reason {@code CLOSED}) while the observers' beans still exist, before the drain.
     */
    void stopLeading(
            @Observes(notifyObserver = Reception.IF_EXISTS) @BeforeDestroyed(ApplicationScoped.class)
                    Object applicationStopping) {
        closeLeaderships();
    }

    /** Closes the declared leaderships, outside the monitor: their observers may call this bean. */
    private void closeLeaderships() {
        List<Leadership> open;
        synchronized (this) {
            open = new ArrayList<>(leaderships.values());
            leaderships.clear();
        }
        for (Leadership leadership : open) {
            try {
                leadership.close();
            } catch (RuntimeException e) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "lockkit: closing the leadership " + leadership.name() + " failed",
                        e);
            }
        }
    }

    /** Whether the own factory will lock in the application's DataSource bean (lockkit.provider=jdbc without URL or JNDI name). */
    private boolean onApplicationsDataSource(LockkitConfig config) {
        return !providers.isResolvable()
                && "jdbc".equalsIgnoreCase(config.string(LockkitConfig.PROVIDER).orElse(""))
                && config.string(LockkitConfig.JDBC_URL).isEmpty()
                && config.string(LockkitConfig.JDBC_DATASOURCE).isEmpty();
    }

    private synchronized void register() {
        if (registeredFor == null) {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            if (loader != null) {
                BY_LOADER.putIfAbsent(loader, this);
                registeredFor = loader;
            }
        }
    }

    /** Asks the own factory's backend one read-only question, so an unreachable one fails the start. */
    private void check() {
        LockProvider provider;
        LockkitConfig config;
        synchronized (this) {
            if (own == null || ownProvider == null || ownConfig == null) {
                return; // the application's factory: its own business
            }
            provider = ownProvider;
            config = ownConfig;
        }
        try {
            provider.inspect(STARTUP_CHECK_NAME);
        } catch (UnsupportedOperationException e) {
            // a provider without inspection: nothing cheap to ask
        } catch (RuntimeException e) {
            String what = config == null || providers.isResolvable()
                    ? "the application's LockProvider " + provider
                    : backend(config);
            if (e.getClass().getName().equals("io.lockkit.jdbc.LockSchemaException")) {
                what = what + " (" + config.describe(LockkitConfig.JDBC_TABLE, "lockkit_locks")
                        + "; create it from the DDL" + " shipped in lock-jdbc, or set "
                        + LockkitConfig.JDBC_CREATE_SCHEMA + "=true)";
            }
            IllegalStateException failure = new IllegalStateException(
                    "lockkit: the lock backend did not answer at"
                            + " application start: " + what + ": " + e.getMessage() + ". Fix the setting or start the"
                            + " backend; " + LockkitConfig.STARTUP + "=lazy starts without it."
                            + config.typoHints(),
                    e);
            close();
            throw failure;
        }
    }

    /** The settings that name the configured backend, for start-up failures. */
    private static String backend(LockkitConfig config) {
        String kind = config.string(LockkitConfig.PROVIDER).orElse("redis").toLowerCase(Locale.ROOT);
        return switch (kind) {
            case "jdbc" -> JdbcProviders.describe(config);
            case "local" -> "the in-JVM provider";
            default -> RedisProviders.describe(config);
        };
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
                    throw new IllegalStateException(
                            "lockkit: several DistributedLockFactory beans qualify for @Locked: " + describe(factories)
                                    + "; keep one with the @Default qualifier");
                }
                resolved = factories.isResolvable() ? factories.get() : own();
            }
            return resolved;
        }
    }

    /** Where releases wait for the caller's transaction to complete. */
    public TransactionCompletion transactions() {
        TransactionCompletion t = transactions;
        if (t == null) {
            t = Transactions.find(beans);
            transactions = t;
            LOG.log(System.Logger.Level.DEBUG, "lockkit: @Locked releases wait for {0}", t);
        }
        return t;
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
            throw new IllegalStateException("lockkit: the CDI integration was shut down");
        }
        if (own == null) {
            LockkitConfig config = LockkitConfig.load();
            try {
                own = build(config);
            } catch (IllegalArgumentException e) {
                String hints = config.typoHints();
                throw hints.isEmpty() ? e : new IllegalArgumentException(e.getMessage() + hints, e);
            } catch (IllegalStateException e) {
                String hints = config.typoHints();
                throw hints.isEmpty() ? e : new IllegalStateException(e.getMessage() + hints, e);
            }
        }
        return own;
    }

    private DistributedLockFactory build(LockkitConfig config) {
        // Made at start; here only where the start was not observed. Closed with this bean.
        return build(config, containerThreads());
    }

    private DistributedLockFactory build(LockkitConfig config, @Nullable ThreadFactory container) {
        LockProvider provider;
        if (providers.isAmbiguous()) {
            throw new IllegalStateException("lockkit: several LockProvider beans with the @Default qualifier: "
                    + describe(providers) + "; keep one");
        }
        drainTimeout = setting(config, LockkitConfig.DRAIN_TIMEOUT, DEFAULT_DRAIN_TIMEOUT);
        if (providers.isResolvable()) {
            // Closed with the factory, which owns its provider; a @Dependent one is destroyed with this bean.
            provider = providers.get();
        } else {
            String kind = config.string(LockkitConfig.PROVIDER).orElse("redis").toLowerCase(Locale.ROOT);
            provider = switch (kind) {
                case "redis" -> {
                    requireJedis();
                    yield RedisProviders.create(
                            config, container == null ? null : ManagedThreads.named(container, "lockkit-redis"));
                }
                case "jdbc" -> {
                    requireJdbc();
                    yield JdbcProviders.create(
                            config, beans, container == null ? null : ManagedThreads.named(container, "lockkit-jdbc"));
                }
                case "local" -> new LocalLockProvider();
                default -> throw config.invalid(LockkitConfig.PROVIDER, kind, "expected redis, jdbc or local");
            };
        }
        DistributedLockFactory.Builder b = DistributedLockFactory.builder(provider);
        try {
            config.duration(LockkitConfig.WATCHDOG_LEASE)
                    .ifPresent(lease -> b.defaultOptions(
                            LockOptions.builder().watchdogLease(lease).build()));
        } catch (IllegalArgumentException e) {
            provider.close();
            throw new IllegalArgumentException(
                    LockkitConfig.WATCHDOG_LEASE + " (from " + config.origin() + "): " + e.getMessage(), e);
        }
        config.string(LockkitConfig.CLIENT_ID).ifPresent(id -> {
            try {
                b.clientId(id);
            } catch (IllegalArgumentException e) {
                provider.close();
                throw config.invalid(LockkitConfig.CLIENT_ID, id, String.valueOf(e.getMessage()));
            }
        });
        if (container != null) {
            b.threadFactory(ManagedThreads.named(container, "lockkit-scheduler"));
        }
        if (micrometerPresent()) {
            Runnable earlier = unbindMetrics; // an earlier build that failed after binding its meters
            if (earlier != null) {
                removeMeters(earlier);
            }
            unbindMetrics = MicrometerMetrics.bind(beans, b);
        }
        ownProvider = provider;
        ownConfig = config;
        LOG.log(
                System.Logger.Level.INFO,
                "lockkit: DistributedLockFactory over {0}{1}",
                provider,
                container != null ? " with the container's ManagedThreadFactory" : "");
        return b.build();
    }

    private static Duration setting(LockkitConfig config, String key, Duration fallback) {
        Duration d = config.duration(key).orElse(fallback);
        if (d.isNegative()) {
            throw config.invalid(key, d.toString(), "must not be negative");
        }
        return d;
    }

    private static String describe(Instance<?> candidates) {
        List<String> beans = new ArrayList<>();
        for (Instance.Handle<?> handle : candidates.handles()) {
            beans.add(handle.getBean().toString());
        }
        return String.join(", ", beans);
    }

    /** Whether Micrometer and lock-micrometer are visible to lock-cdi (checked by name, loading neither). */
    private static boolean micrometerPresent() {
        ClassLoader loader = LockFactoryHolder.class.getClassLoader();
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry", false, loader);
            Class.forName("io.lockkit.micrometer.LockMetrics", false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static void requireJdbc() {
        try {
            Class.forName("io.lockkit.jdbc.JdbcLockProvider", false, LockFactoryHolder.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(
                    LockkitConfig.PROVIDER + "=jdbc needs io.lockkit:lock-jdbc on the class path"
                            + " (and the database's JDBC driver); add it, or produce a LockProvider or DistributedLockFactory bean",
                    e);
        }
    }

    private static void requireJedis() {
        try {
            Class.forName("io.lockkit.jedis.JedisLockProvider", false, LockFactoryHolder.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(
                    LockkitConfig.PROVIDER + "=redis (the default) needs io.lockkit:lock-jedis"
                            + " on the class path; add it, set " + LockkitConfig.PROVIDER
                            + "=local for a single process,"
                            + " or produce a LockProvider or DistributedLockFactory bean",
                    e);
        }
    }

    /** Undeploy or shutdown: lets running {@code @Locked} methods finish (up to the drain timeout), then closes. */
    @PreDestroy
    void close() {
        closeLeaderships();
        DistributedLockFactory f;
        Duration drain;
        ManagedThreads.ContextFreeThreads maker;
        Runnable metrics;
        synchronized (this) {
            closed = true;
            if (registeredFor != null) {
                BY_LOADER.remove(registeredFor, this);
                registeredFor = null;
            }
            f = own;
            drain = drainTimeout;
            maker = threadMaker;
            metrics = unbindMetrics;
            unbindMetrics = null;
            own = null;
            ownProvider = null;
            threadMaker = null;
        }
        try {
            if (f != null) {
                f.close(drain); // outside the monitor: running methods may still need this bean
            }
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.WARNING, "lockkit: closing the lock factory failed", e);
            throw e;
        } finally {
            if (maker != null) {
                maker.close();
            }
            if (metrics != null) {
                removeMeters(metrics);
            }
        }
    }

    /** After the factory closed: its meters leave the application's registry; never fails the undeploy. */
    private static void removeMeters(Runnable metrics) {
        try {
            metrics.run();
        } catch (RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.WARNING, "lockkit: removing the lock meters from the registry failed", e);
        }
    }
}
