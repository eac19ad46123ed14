package io.lockkit.spring.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.cdi.LeadershipGranted;
import io.lockkit.cdi.LeadershipRevoked;
import io.lockkit.cdi.internal.engine.BackendOutage;
import io.lockkit.cdi.internal.engine.FactoryBuild;
import io.lockkit.cdi.internal.engine.Leaderships;
import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.cdi.internal.engine.OwnedFactory;
import io.lockkit.cdi.internal.engine.TransactionCompletion;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spring.LeadershipGrantedEvent;
import io.lockkit.spring.LeadershipRevokedEvent;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.target.AbstractLazyCreationTargetSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.Environment;

/**
 * An application's lockkit machinery in a Spring context: the configuration, the library's own
 * factory (built and checked at start, or at first use under {@code lockkit.startup=lazy}; drained
 * and closed when the context closes), the declared leaderships and their events, the transaction
 * support and the outage log of {@code @Locked} calls. One bean per context; thread-safe.
 */
// Design notes.
// - The factory and its rules are lock-cdi's engine (FactoryBuild, OwnedFactory): the same keys,
//   messages and start-up check as in CDI and Quarkus; only the inputs (beans, Environment) differ.
// - Lazy start: the bean is a proxy whose target is built at its first call (Spring's lazy target
//   source), so the context starts without the backend and the first use fails typed. The proxy is
//   never closed itself: close() closes what was built, and builds nothing.
// - Leaderships start as a SmartLifecycle (after every singleton, so every @EventListener is
//   registered) and step down at its stop, before the beans are destroyed; the drain comes at
//   destroy(), after the application's beans that use the factory are gone.
public final class SpringLockkit implements SmartLifecycle, DisposableBean {

    private static final System.Logger LOG = System.getLogger(SpringLockkit.class.getName());

    private final LockkitConfig config;
    private final BeanFactory beans;
    private final ApplicationEventPublisher events;
    private final TransactionCompletion transactions;
    private final BackendOutage outage = new BackendOutage();
    private final Leaderships leaderships;
    private final boolean lazy;

    private @Nullable OwnedFactory own;
    private volatile @Nullable DistributedLockFactory locked;
    private boolean closed;
    private volatile boolean running;

    /**
     * Reads the configuration: reports unknown {@code lockkit.*} keys (a warning with the key
     * probably meant) and fails for a misspelt leadership setting or a bad {@code lockkit.startup}.
     */
    public SpringLockkit(Environment environment, BeanFactory beans, ApplicationEventPublisher events) {
        this.config = SpringConfig.of(environment);
        this.beans = beans;
        this.events = events;
        FactoryBuild.reportUnknownKeys(config, LOG);
        config.leadershipNames();
        String startup = config.string(LockkitConfig.STARTUP).orElse("eager").toLowerCase(Locale.ROOT);
        if (!startup.equals("eager") && !startup.equals("lazy")) {
            throw config.invalid(LockkitConfig.STARTUP, startup, "expected eager or lazy");
        }
        this.lazy = startup.equals("lazy");
        this.transactions =
                LockkitConfig.present("org.springframework.transaction.support.TransactionSynchronizationManager")
                        ? new SpringTransactions()
                        : TransactionCompletion.NONE;
        this.leaderships = new Leaderships(this::publish);
    }

    /** The declared leadership {@code name}, once started (see {@code LockkitLeaderships}). */
    public Optional<Leadership> leadership(String name) {
        return leaderships.get(name);
    }

    /** The configuration, as lockkit reads it. */
    public LockkitConfig config() {
        return config;
    }

    /**
     * The library's own factory, the bean applications inject: built and checked now, or under
     * {@code lockkit.startup=lazy} a proxy that builds it at its first call.
     *
     * @throws IllegalStateException (failing the context's start) naming the key to fix
     */
    public DistributedLockFactory factoryBean() {
        if (!lazy) {
            return own(true);
        }
        ProxyFactory proxy = new ProxyFactory();
        proxy.addInterface(DistributedLockFactory.class);
        proxy.setTargetSource(new AbstractLazyCreationTargetSource() {
            @Override
            public Class<?> getTargetClass() {
                return DistributedLockFactory.class;
            }

            @Override
            protected Object createObject() {
                return own(false);
            }
        });
        return (DistributedLockFactory) proxy.getProxy(SpringLockkit.class.getClassLoader());
    }

    private synchronized DistributedLockFactory own(boolean check) {
        if (closed) {
            throw new IllegalStateException("lockkit: the application context was closed");
        }
        OwnedFactory built = own;
        if (built == null) {
            built = FactoryBuild.build(config, new Inputs(), check);
            own = built;
        }
        return built.factory();
    }

    /** Where {@code @Locked} releases wait for the caller's transaction. */
    public TransactionCompletion transactions() {
        return transactions;
    }

    /** The backend's outages as {@code @Locked} calls meet them. */
    public BackendOutage outage() {
        return outage;
    }

    /** The factory {@code @Locked} methods use: the application's {@code DistributedLockFactory} bean (ours or its own). */
    public DistributedLockFactory lockedFactory() {
        DistributedLockFactory f = locked;
        if (f == null) {
            f = beans.getBean(DistributedLockFactory.class);
            locked = f;
        }
        return f;
    }

    /** Starts the declared leaderships on the factory {@code @Locked} uses. */
    @Override
    public void start() {
        running = true;
        leaderships.start(config, this::lockedFactory);
    }

    /** Steps the declared leaderships down ({@link LeadershipRevokedEvent}, reason {@code CLOSED}) while listeners exist. */
    @Override
    public void stop() {
        running = false;
        leaderships.close(false);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Closes: the leaderships, then the factory after its drain ({@code lockkit.drain-timeout}). */
    @Override
    public void destroy() {
        leaderships.close(true);
        OwnedFactory built;
        synchronized (this) {
            closed = true;
            built = own;
            own = null;
        }
        if (built != null) {
            built.close();
        }
    }

    private void publish(Object event, String name) {
        if (event instanceof LeadershipGranted granted) {
            events.publishEvent(new LeadershipGrantedEvent(this, granted.name(), granted.term()));
        } else if (event instanceof LeadershipRevoked revoked) {
            events.publishEvent(new LeadershipRevokedEvent(this, revoked.name(), revoked.term(), revoked.reason()));
        }
    }

    /** The build's inputs from the context: the application's provider bean, its beans, its registry. */
    private final class Inputs implements FactoryBuild.Inputs {
        @Override
        public @Nullable LockProvider applicationProvider() {
            try {
                return beans.getBeanProvider(LockProvider.class).getIfAvailable();
            } catch (NoUniqueBeanDefinitionException e) {
                throw new IllegalStateException(
                        "lockkit: several LockProvider beans: " + e.getBeanNamesFound() + "; keep one", e);
            }
        }

        @Override
        public ProviderEnvironment environment(String threadPrefix) {
            return new SpringProviderEnvironment(beans);
        }

        @Override
        public @Nullable Runnable bindMetrics(DistributedLockFactory.Builder builder) {
            return SpringMetrics.bind(beans, builder);
        }
    }
}
