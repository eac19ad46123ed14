package io.lockkit.cdi;

import io.lockkit.cdi.internal.BulkheadInterceptor;
import io.lockkit.cdi.internal.LockFactoryHolder;
import io.lockkit.cdi.internal.LockedInterceptor;
import io.lockkit.cdi.internal.LockkitPortableExtension;
import io.lockkit.testkit.redis.RedisServer;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.enterprise.inject.se.SeContainer;
import jakarta.enterprise.inject.se.SeContainerInitializer;
import jakarta.enterprise.inject.spi.AnnotatedType;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.InjectionTarget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Test plumbing: CDI SE containers with lock-cdi's beans, started through the portable
 * {@link SeContainerInitializer} so every test runs on the implementation on the class path (Weld in
 * the default surefire execution, OpenWebBeans in the {@code openwebbeans} one), and MicroProfile
 * Config for them.
 */
// Design notes.
// - Same deployment on both: discovery off, lock-cdi's beans and portable extension (what a CDI
//   Full container with discovery loads from lock-cdi's jar), the test's beans and the extensions it
//   names. Weld SE loads no ServiceLoader extension with discovery off; OpenWebBeans SE always loads
//   them, so here it is told to ignore every one the test did not name (Narayana's, SmallRye
//   Config's).
// - OpenWebBeans keeps one container per class loader (a second one on the same loader fails), as
//   a server keeps one per application. Each OpenWebBeans container gets a class loader of its own,
//   named after the application, that loads nothing itself; the application's MicroProfile Config
//   is registered for it too, since lock-cdi reads its configuration through the context class
//   loader, which OpenWebBeans sets to that loader while it starts the container.
final class Lockkit {

    /** What bean discovery finds in lock-cdi's jar (the extension comes through ServiceLoader). */
    static final Class<?>[] LIBRARY_BEANS = {LockedInterceptor.class, BulkheadInterceptor.class, LockFactoryHolder.class
    };

    /** Whether the CDI implementation on the class path is OpenWebBeans (else Weld). */
    static final boolean OPENWEBBEANS =
            SeContainerInitializer.newInstance().getClass().getName().startsWith("org.apache.openwebbeans.");

    private static volatile @Nullable Config config;

    private Lockkit() {}

    /**
     * A start that failed: its exception, the messages of the exception and its causes, and the
     * warnings and errors logged while it failed.
     */
    record Failure(RuntimeException error, List<String> chain, List<String> logged) {
        /** What a user reading the log sees: the exception's messages, then the records logged. */
        List<String> messages() {
            List<String> all = new ArrayList<>(chain);
            all.addAll(logged);
            return all;
        }
    }

    /**
     * Starts the application {@code start} makes, which must fail, closing it if it does not: the
     * exception's messages, cause by cause, then the warnings and errors logged meanwhile.
     * OpenWebBeans logs each deployment problem an extension reports (at SEVERE) and throws a
     * message of its own that names none; Weld puts them in its exception's message.
     */
    static Failure failure(java.util.function.Supplier<SeContainer> start) {
        List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                if (record.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
                    logged.add(String.valueOf(new java.util.logging.SimpleFormatter().formatMessage(record)));
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        root.addHandler(handler);
        try {
            start.get().close();
        } catch (RuntimeException e) {
            return new Failure(e, StartupTest.rootMessages(e), List.copyOf(logged));
        } finally {
            root.removeHandler(handler);
        }
        throw new AssertionError("the application started");
    }

    /** A deployment of lock-cdi with {@code beans}, to add extensions to and start. */
    static Deployment deployment(Class<?>... beans) {
        return new Deployment(beans);
    }

    /** A started container: the application {@code name} (several may run at once, as separate applications). */
    static SeContainer start(String name, Class<?>... beans) {
        return deployment(beans).start(name);
    }

    /**
     * A container started before each test with {@code beans}, whose {@code @Inject} fields of the
     * test instance it fills, and closed after it.
     */
    static PerTest perTest(Class<?>... beans) {
        return new PerTest(beans);
    }

    /** lock-cdi's beans and extension, the test's beans and the extensions the test adds. */
    static final class Deployment {
        private final Class<?>[] beans;
        private final List<Extension> extensions = new ArrayList<>();

        private Deployment(Class<?>[] beans) {
            this.beans = beans.clone();
            extensions.add(new LockkitPortableExtension());
        }

        /** Adds a portable extension (Narayana's, for {@code @Transactional}). */
        Deployment extension(Extension extension) {
            extensions.add(extension);
            return this;
        }

        /** Starts the application {@code name}. */
        SeContainer start(String name) {
            SeContainerInitializer initializer = SeContainerInitializer.newInstance()
                    .disableDiscovery()
                    .addBeanClasses(LIBRARY_BEANS)
                    .addBeanClasses(beans)
                    .addExtensions(extensions.toArray(Extension[]::new));
            if (OPENWEBBEANS) {
                ClassLoader parent = Thread.currentThread().getContextClassLoader();
                ClassLoader application = new ClassLoader(name, parent) {};
                Config current = config;
                if (current != null) {
                    ConfigProviderResolver.instance().registerConfig(current, application);
                }
                initializer
                        .setClassLoader(application)
                        .addProperty("org.apache.webbeans.ignoredExtensions", String.join(",", unnamedExtensions()));
            }
            return initializer.initialize();
        }

        /** The ServiceLoader extensions of the class path that this deployment does not name. */
        private Set<String> unnamedExtensions() {
            Set<String> names = new LinkedHashSet<>();
            for (ServiceLoader.Provider<Extension> found :
                    ServiceLoader.load(Extension.class).stream().toList()) {
                names.add(found.type().getName());
            }
            extensions.forEach(e -> names.remove(e.getClass().getName()));
            return names;
        }
    }

    /** A JUnit extension: a container per test, whose beans are injected into the test instance. */
    static final class PerTest implements BeforeEachCallback, AfterEachCallback {
        private final Class<?>[] beans;
        private @Nullable SeContainer container;

        private PerTest(Class<?>[] beans) {
            this.beans = beans.clone();
        }

        @Override
        public void beforeEach(ExtensionContext context) {
            Object test = context.getRequiredTestInstance();
            SeContainer started = start(context.getRequiredTestClass().getSimpleName(), beans);
            container = started;
            inject(started.getBeanManager(), test);
        }

        @SuppressWarnings("unchecked")
        private static <T> void inject(BeanManager beans, T test) {
            AnnotatedType<T> type = beans.createAnnotatedType((Class<T>) test.getClass());
            InjectionTarget<T> target = beans.getInjectionTargetFactory(type).createInjectionTarget(null);
            target.inject(test, beans.createCreationalContext(null));
        }

        @Override
        public void afterEach(ExtensionContext context) {
            SeContainer started = container;
            container = null;
            if (started != null) {
                started.close();
            }
        }
    }

    /**
     * Makes {@code values} the MicroProfile Config of this class loader (SmallRye Config), as an
     * application's configuration would be, until {@link #clearConfig()}.
     */
    static void useConfig(Map<String, String> values) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        clearConfig();
        Config made = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(values, "lockkit-test", 500))
                .build();
        resolver.registerConfig(made, loader);
        config = made;
    }

    /** Config naming {@code redis}, plus {@code more}. */
    static void useRedis(RedisServer redis, String... more) {
        Map<String, String> values = new HashMap<>();
        values.put("lockkit.redis.uri", redis.uri());
        for (int i = 0; i < more.length; i += 2) {
            values.put(more[i], more[i + 1]);
        }
        useConfig(values);
    }

    static void clearConfig() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        config = null;
        // getConfig() registers a default config when there is none, so there is always one to release.
        resolver.releaseConfig(resolver.getConfig(loader));
    }
}
