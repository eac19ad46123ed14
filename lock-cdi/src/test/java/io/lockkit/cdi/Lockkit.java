package io.lockkit.cdi;

import io.lockkit.cdi.internal.LockFactoryHolder;
import io.lockkit.cdi.internal.LockedInterceptor;
import io.lockkit.cdi.internal.LockkitPortableExtension;
import io.lockkit.testkit.redis.RedisServer;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.jboss.weld.junit5.WeldInitiator;

/** Test plumbing: Weld containers with lock-cdi's beans, and MicroProfile Config for them. */
final class Lockkit {

    /** What bean discovery finds in lock-cdi's jar (the extension comes through ServiceLoader). */
    static final Class<?>[] LIBRARY_BEANS = {LockedInterceptor.class, LockFactoryHolder.class};

    private Lockkit() {}

    /**
     * A Weld with discovery off, lock-cdi's beans and portable extension (what a CDI Full container
     * with discovery loads from lock-cdi's jar) and {@code beans}.
     */
    static Weld weld(Class<?>... beans) {
        return WeldInitiator.createWeld()
                .addBeanClasses(LIBRARY_BEANS)
                .addBeanClasses(beans)
                .addExtension(new LockkitPortableExtension());
    }

    /** A started container with id {@code id} (several may run at once, as separate applications). */
    static WeldContainer start(String id, Class<?>... beans) {
        return weld(beans).containerId(id).initialize();
    }

    static WeldInitiator initiator(Class<?>... beans) {
        return WeldInitiator.from(weld(beans)).build();
    }

    /**
     * Makes {@code values} the MicroProfile Config of this class loader (SmallRye Config), as an
     * application's configuration would be, until {@link #clearConfig()}.
     */
    static void useConfig(Map<String, String> values) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        clearConfig();
        Config config = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(values, "lockkit-test", 500))
                .build();
        resolver.registerConfig(config, loader);
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
        // getConfig() registers a default config when there is none, so there is always one to release.
        resolver.releaseConfig(resolver.getConfig(loader));
    }
}
