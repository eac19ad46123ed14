package io.lockkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An application server may refuse to load any more of an application's classes once it began to
 * undeploy it (Payara: "This web container has not yet been started"), and a factory that lives in
 * the application (lock-cdi's) is closed only then. Its close must therefore need no class that was
 * not loaded while the factory was in use: lock-api is loaded here by a class loader that refuses
 * {@code io.lockkit} classes once stopped, as such a server's does.
 */
@DisplayName("A factory closes after its class loader stopped loading lockkit's classes")
class CloseAfterTheLoaderStopsTest {

    @Test
    @DisplayName("with a held lock, a leadership and an async wait, close needs no class it had not loaded")
    void closeLoadsNoNewClass() throws Exception {
        URL classes = DistributedLockFactory.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation();
        try (StoppingLoader loader = new StoppingLoader(classes, getClass().getClassLoader())) {
            List<Object> factories = useFactories(loader);
            Object factory = factories.get(0);

            loader.stopped = true;
            Method close = factory.getClass().getMethod("close", Duration.class);
            close.setAccessible(true);
            CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> invoke(close, factory));

            assertThat(closed).succeedsWithin(Duration.ofSeconds(30));
            assertThat(loader.refused)
                    .as("lockkit classes the close asked for after the loader stopped")
                    .isEmpty();
            loader.stopped = false;
            invoke(close, factories.get(1));
        }
    }

    /**
     * Builds two factories of one backend from the loader's classes; the first is used as an
     * application uses one, and waits for a lock the second holds.
     */
    private static List<Object> useFactories(ClassLoader loader) throws Exception {
        Class<?> providerType = loader.loadClass("io.lockkit.spi.LockProvider");
        Object provider = loader.loadClass("io.lockkit.LocalLockProvider")
                .getConstructor()
                .newInstance();
        Class<?> factoryType = loader.loadClass("io.lockkit.DistributedLockFactory");
        Object factory = factoryType.getMethod("create", providerType).invoke(null, provider);
        Object other = factoryType
                .getMethod("create", providerType)
                .invoke(null, provider.getClass().getMethod("newClient").invoke(provider));

        Object hold = factoryType.getMethod("acquire", String.class).invoke(factory, "held");
        assertThat(hold).isNotNull();
        Class<?> optionsType = loader.loadClass("io.lockkit.LeadershipOptions");
        Object defaults = optionsType.getField("DEFAULTS").get(null);
        Object leadership =
                factoryType.getMethod("leadership", String.class, optionsType).invoke(factory, "leader", defaults);
        Class<?> leadershipType = loader.loadClass("io.lockkit.Leadership");
        leadershipType.getMethod("start").invoke(leadership);
        Method isLeader = leadershipType.getMethod("isLeader");
        await().atMost(10, TimeUnit.SECONDS).until(() -> (Boolean) isLeader.invoke(leadership));
        // A lock of the other client, waited for asynchronously by this one while it closes.
        factoryType.getMethod("acquire", String.class).invoke(other, "busy");
        Object waiting = factoryType.getMethod("acquireAsync", String.class).invoke(factory, "busy");
        assertThat(waiting).isNotNull();
        return List.of(factory, other);
    }

    private static void invoke(Method method, Object target) {
        try {
            method.invoke(target, Duration.ofSeconds(1));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * Loads {@code io.lockkit} classes itself (child first), the others from its parent; once
     * stopped, refuses any {@code io.lockkit} class it has not loaded yet, and notes its name.
     */
    private static final class StoppingLoader extends URLClassLoader {
        volatile boolean stopped;
        final List<String> refused = java.util.Collections.synchronizedList(new ArrayList<>());

        StoppingLoader(URL classes, ClassLoader parent) {
            super(new URL[] {classes}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("io.lockkit.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    if (stopped) {
                        refused.add(name);
                        throw new IllegalStateException("the application is being undeployed: " + name);
                    }
                    loaded = findClass(name);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }
    }
}
