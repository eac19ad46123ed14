package io.lockkit.examples.recipes;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;

/** Test plumbing shared by the recipes: MicroProfile Config for the CDI ones. */
final class Recipes {

    private Recipes() {}

    /**
     * Makes {@code keysAndValues} the MicroProfile Config of this class loader, as an application's
     * {@code microprofile-config.properties} (or its environment) would, until {@link #clearConfig()}.
     */
    static void useConfig(String... keysAndValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            values.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        clearConfig();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        ConfigProviderResolver.instance()
                .registerConfig(
                        new SmallRyeConfigBuilder()
                                .withSources(new PropertiesConfigSource(values, "recipe", 500))
                                .build(),
                        loader);
    }

    static void clearConfig() {
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        // getConfig() registers a default config when there is none, so there is always one to release.
        resolver.releaseConfig(resolver.getConfig(Thread.currentThread().getContextClassLoader()));
    }
}
