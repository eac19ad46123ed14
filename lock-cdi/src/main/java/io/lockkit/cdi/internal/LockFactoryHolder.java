package io.lockkit.cdi.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.cdi.DistributedBulkhead;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.Locked;
import io.lockkit.cdi.internal.engine.BackendOutage;
import io.lockkit.cdi.internal.engine.Leaderships;
import io.lockkit.cdi.internal.engine.LockedMethod;
import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.cdi.internal.engine.OwnedFactory;
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
import jakarta.inject.Inject;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * The application's lock machinery, a plain discovered bean so that {@code @Locked} works without
 * any extension: the factory {@code @Locked} uses ({@link FactoryResolver}), the library's own one
 * ({@link OwnedFactory}: checked at start, drained and closed at shutdown), the declared
 * {@link Leaderships}, the transaction support and the per-method cache; registered per application
 * in the {@link ApplicationRegistry}.
 */
// Design notes.
// - Which factory: the application's DistributedLockFactory bean if it has one (ours, the synthetic
//   bean the extensions add when it has none, resolves back to own()); without an extension, own()
//   directly. Resolved once: a @Dependent application factory is obtained once, not per call.
// - Fail fast: at @Initialized(ApplicationScoped) the factory is built and the backend asked one
//   read-only question, so a wrong URI or a stopped backend fails the deployment with a message
//   naming the key and where its value came from, not the first user request. lockkit.startup=lazy
//   defers this to the first use (an application that must start while its backend is down). A
//   provider that needs an application bean (Quarkus' DataSource) starts at the Startup event. The
//   backend is asked before the factory is built, so a failing start never announces a started
//   factory; a runtime may run the Startup-event start before the other observers of that event
//   (startBeforeStartupObservers: lock-quarkus, ahead of Quarkus' scheduler).
// - Leaderships start right after the start-up check (under lockkit.startup=lazy without it: a
//   campaign waits for the backend by itself) and close at @BeforeDestroyed(ApplicationScoped),
//   before the drain; @PreDestroy closes them too, for a container that did not fire it.
@ApplicationScoped
public class LockFactoryHolder {

    private static final System.Logger LOG = System.getLogger(LockFactoryHolder.class.getName());
    /** Whether the container is Quarkus ArC, found by a class only Quarkus has. */
    private static final boolean QUARKUS = LockkitConfig.present("io.quarkus.runtime.StartupEvent");

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

    private final LockedMethods methods = new LockedMethods();
    private final BackendOutage outage = new BackendOutage();
    private volatile @Nullable DistributedLockFactory resolved;
    private volatile @Nullable OwnedFactory own;
    private volatile @Nullable TransactionCompletion transactions;
    private @Nullable FactoryResolver resolver;
    private @Nullable Leaderships leaderships;
    private final ApplicationThreads threads = new ApplicationThreads(() -> threadFactories);
    private @Nullable ClassLoader registeredFor;
    private volatile boolean startAtStartup;
    /** Set in Quarkus, where the whole start runs at the Startup event (see {@link #start}). */
    private volatile boolean startOnStartupEvent;
    /** Set while the eager start builds the factory at {@code @Initialized}: a provider needing a bean waits. */
    private volatile boolean starting;
    /** Set while the eager start builds the factory: the backend is asked before the factory is built. */
    private volatile boolean checking;

    private boolean closed;

    /**
     * Application start: reports unknown {@code lockkit.*} keys, finds the transaction manager, and
     * unless {@code lockkit.startup=lazy} builds the factory and checks that its backend answers.
     *
     * @throws IllegalStateException (failing the deployment) naming the key to fix
     */
    void start(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        if (QUARKUS) {
            // ArC fires @Initialized(ApplicationScoped) during Quarkus' static initialization (at image
            // build time in a native executable), whose configuration lacks the run-time sources (Dev
            // Services, config-source extensions): the start waits for the Startup event.
            LOG.log(System.Logger.Level.DEBUG, "lockkit: Quarkus; the start waits for the Startup event");
            startOnStartupEvent = true;
            return;
        }
        begin(false);
    }

    /**
     * The start proper: at {@code @Initialized(ApplicationScoped)}, or at the Startup event in
     * Quarkus ({@code atStartupEvent}: the application's beans are ready, nothing waits).
     */
    private void begin(boolean atStartupEvent) {
        synchronized (this) {
            if (registeredFor == null) {
                registeredFor = ApplicationRegistry.register(this);
            }
        }
        LockkitConfig config = LockkitConfig.load();
        resolver().reportUnknownKeys(config);
        config.leadershipNames(); // a misspelt leadership setting fails the start, before anything is built
        transactions();
        threads.get();
        boolean over = true;
        try {
            String startup =
                    config.string(LockkitConfig.STARTUP).orElse("eager").toLowerCase(Locale.ROOT);
            switch (startup) {
                case "lazy" -> {
                    LOG.log(System.Logger.Level.DEBUG, "lockkit: lazy start; the factory is built at first use");
                    leaderships().start(config, this::factory);
                }
                case "eager" -> {
                    try {
                        startEagerly(!atStartupEvent);
                    } catch (RuntimeException e) {
                        if (!CdiProviderEnvironment.NeedsStartedApplication.causes(e)) {
                            throw e;
                        }
                        // Quarkus initializes its datasources after @Initialized(ApplicationScoped): a
                        // provider on one waits for the Startup event, which every CDI 4 container fires later.
                        LOG.log(System.Logger.Level.DEBUG, "lockkit: the start-up check waits for the Startup event");
                        startAtStartup = true;
                        over = false;
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
                threads.startOver(); // from now on threads are the container's
            }
        }
    }

    /**
     * Starts now what would start at the Startup event, for a runtime that calls this once the
     * application's beans are ready and before any Startup observer runs: lock-quarkus does, so that
     * an unreachable backend fails the start before the scheduler's first job (a Startup observer)
     * can run. Does nothing where the start already ran, and is safe to call more than once.
     *
     * @throws IllegalStateException (failing the start) naming the key to fix
     */
    public void startBeforeStartupObservers() {
        boolean now;
        synchronized (this) {
            now = startOnStartupEvent;
            startOnStartupEvent = false;
        }
        if (now) {
            begin(true);
        }
    }

    /** The eager start for the application's DataSource bean, once the container has started. */
    void started(@Observes jakarta.enterprise.event.Startup containerStarted) {
        startBeforeStartupObservers();
        try {
            if (startAtStartup) {
                startAtStartup = false;
                startEagerly(false);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        } finally {
            threads.startOver();
        }
    }

    /** Builds the factory and asks its backend; {@code starting}: at {@code @Initialized}, before the Startup event. */
    private void startEagerly(boolean starting) {
        this.starting = starting;
        this.checking = true;
        try {
            // A method call makes the container create the bean behind the client proxy; the library's
            // own factory asks its backend before it is built (FactoryResolver.build).
            factory().defaultOptions();
        } finally {
            this.starting = false;
            this.checking = false;
        }
        OwnedFactory built = own;
        if (built != null && !built.checked()) { // built earlier, at a first use; else the application's factory
            built.check();
        }
        leaderships().start(LockkitConfig.load(), this::factory);
    }

    private synchronized FactoryResolver resolver() {
        if (resolver == null) {
            resolver = new FactoryResolver(factories, providers, beans);
        }
        return resolver;
    }

    /** The leaderships the configuration declares. */
    synchronized Leaderships leaderships() {
        if (leaderships == null) {
            leaderships = new Leaderships(
                    (event, name) -> events.select(LeaderOf.Literal.of(name)).fire(event));
        }
        return leaderships;
    }

    /**
     * The application is about to stop: the declared leaderships step down ({@code LeadershipRevoked}
     * with reason {@code CLOSED}) while the observers' beans still exist, before the drain.
     */
    void stopLeading(
            @Observes(notifyObserver = Reception.IF_EXISTS) @BeforeDestroyed(ApplicationScoped.class)
                    Object applicationStopping) {
        leaderships().close(false);
    }

    /** The factory {@code @Locked} methods lock with. */
    public DistributedLockFactory factory() {
        DistributedLockFactory f = resolved;
        if (f != null) {
            return f;
        }
        synchronized (this) {
            if (resolved == null) {
                DistributedLockFactory application = resolver().applicationFactory();
                resolved = application != null ? application : own();
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

    /** The outages of the backend as this application's {@code @Locked} calls meet them, each logged once. */
    public BackendOutage outage() {
        return outage;
    }

    /** The checked {@code @Locked} method; a declaration error is thrown again on every call. */
    public LockedMethod method(Method method, Locked binding) {
        return methods.get(method, binding);
    }

    /** The checked {@code @DistributedBulkhead} method; a declaration error is thrown again on every call. */
    public LockedMethod method(Method method, DistributedBulkhead binding) {
        return methods.get(method, binding);
    }

    /** The library's own factory, over the application's LockProvider bean or one built from configuration. */
    public synchronized DistributedLockFactory own() {
        if (closed) {
            throw new IllegalStateException("lockkit: the CDI integration was shut down");
        }
        OwnedFactory built = own;
        if (built == null) {
            // The thread maker is made at start; here only where the start was not observed.
            built = resolver().build(LockkitConfig.load(), threads.get(), starting, checking);
            own = built;
        }
        return built.factory();
    }

    /** Undeploy or shutdown: lets running {@code @Locked} methods finish (up to the drain timeout), then closes. */
    @PreDestroy
    void close() {
        leaderships().close(true);
        OwnedFactory built;
        synchronized (this) {
            closed = true;
            if (registeredFor != null) {
                ApplicationRegistry.unregister(registeredFor, this);
                registeredFor = null;
            }
            built = own;
            own = null;
        }
        try {
            if (built != null) {
                built.close(); // outside the monitor: running methods may still need this bean
            }
        } finally {
            threads.close();
        }
    }
}
