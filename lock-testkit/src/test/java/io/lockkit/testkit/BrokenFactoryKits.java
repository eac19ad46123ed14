package io.lockkit.testkit;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.ProviderSettings;
import java.util.List;
import java.util.Map;

/**
 * Provider factories that break the {@link LockProviderFactoryContract}, each beside the kit that
 * runs the contract over it, and an honest one that keeps it. All build in-JVM providers and read
 * one setting, {@code lockkit.<name>.start-tokens-at} (a whole number, at least 1): where the lock
 * table's fencing tokens start. The factories are services of this module's tests
 * ({@code META-INF/services/io.lockkit.spi.LockProviderFactory}), as the contract finds them.
 */
final class BrokenFactoryKits {

    private BrokenFactoryKits() {}

    /** The one key of every factory here, under its own name. */
    static String startKey(String name) {
        return "lockkit." + name + ".start-tokens-at";
    }

    /** Reads and declares its key, and refuses a bad value through {@link ProviderSettings}: honest. */
    public static class HonestFactory implements LockProviderFactory {
        @Override
        public String name() {
            return "kit-honest";
        }

        @Override
        public List<ProviderSetting> settings() {
            return List.of(new ProviderSetting(startKey(name()), "1", "The first fencing token of the lock table."));
        }

        @Override
        public LockProvider create(ProviderSettings settings, ProviderEnvironment environment) {
            LocalLockProvider provider = new LocalLockProvider();
            String key = startKey(name());
            settings.integer(key).ifPresent(next -> settings.apply(key, () -> provider.startTokensAt(next)));
            return provider;
        }

        @Override
        public String describeTarget(ProviderSettings settings) {
            return "a lock table in this JVM";
        }
    }

    /**
     * Also reads {@code lockkit.kit-undeclared.stripes}, which {@link #settings()} does not declare:
     * a container would report a user's setting of it as a typo, and Quarkus would not map it.
     */
    public static class UndeclaredKeyFactory extends HonestFactory {
        @Override
        public String name() {
            return "kit-undeclared";
        }

        @Override
        public LockProvider create(ProviderSettings settings, ProviderEnvironment environment) {
            settings.integer("lockkit." + name() + ".stripes"); // the fault: a key nobody is told of
            return super.create(settings, environment);
        }
    }

    /**
     * Parses its value itself, so a bad one is refused with the JDK's message, an
     * {@link IllegalArgumentException} that names neither the key nor where the value came from.
     */
    public static class UnnamedMalformedValueFactory extends HonestFactory {
        @Override
        public String name() {
            return "kit-unnamed";
        }

        @Override
        public LockProvider create(ProviderSettings settings, ProviderEnvironment environment) {
            LocalLockProvider provider = new LocalLockProvider();
            settings.string(startKey(name())).map(Long::parseLong).ifPresent(provider::startTokensAt);
            return provider;
        }
    }

    /** The contract over one of the factories above, with the same valid and malformed values for each. */
    abstract static class FactoryKit extends LockProviderFactoryContract {
        @Override
        protected Map<String, String> validSettings() {
            return Map.of(startKey(providerName()), "7");
        }

        @Override
        protected Map<String, String> malformedSettings() {
            return Map.of(startKey(providerName()), "soon");
        }
    }

    static class HonestFactoryKit extends FactoryKit {
        @Override
        protected String providerName() {
            return "kit-honest";
        }
    }

    static class UndeclaredKeyKit extends FactoryKit {
        @Override
        protected String providerName() {
            return "kit-undeclared";
        }
    }

    static class UnnamedMalformedValueKit extends FactoryKit {
        @Override
        protected String providerName() {
            return "kit-unnamed";
        }
    }
}
