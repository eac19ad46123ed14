package io.lockkit.cdi.internal.engine;

import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/** The only class touching MicroProfile Config; loaded only when its API is on the class path. */
final class MicroProfileConfig {

    private MicroProfileConfig() {}

    /**
     * @throws IllegalStateException when the API is present but no implementation is
     */
    static Function<String, Optional<String>> source() {
        Config config = ConfigProvider.getConfig();
        return key ->
                config.getOptionalValue(key, String.class).map(String::trim).filter(v -> !v.isEmpty());
    }

    /** The names of every property the application's configuration defines. */
    static Iterable<String> names() {
        return ConfigProvider.getConfig().getPropertyNames();
    }
}
