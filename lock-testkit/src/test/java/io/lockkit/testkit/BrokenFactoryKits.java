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

    /** What a factory here gets wrong. */
    enum Fault {
        NONE,
        /**
         * Also reads {@code lockkit.<name>.stripes}, which {@code settings()} does not declare: a
         * container would report a user's setting of it as a typo, and Quarkus would not map it.
         */
        READS_AN_UNDECLARED_KEY,
        /**
         * Parses its value itself, so a bad one is refused with the JDK's message: an
         * {@link IllegalArgumentException} that names neither the key nor where the value came from.
         */
        PARSES_WITHOUT_NAMING_THE_KEY
    }

    /** An in-JVM provider's factory, named {@code name}, with {@code fault}. */
    abstract static class FaultyFactory implements LockProviderFactory {
        private final String name;
        private final Fault fault;

        FaultyFactory(String name, Fault fault) {
            this.name = name;
            this.fault = fault;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public List<ProviderSetting> settings() {
            return List.of(new ProviderSetting(startKey(name), "1", "The first fencing token of the lock table."));
        }

        @Override
        public LockProvider create(ProviderSettings settings, ProviderEnvironment environment) {
            LocalLockProvider provider = new LocalLockProvider();
            String key = startKey(name);
            switch (fault) {
                case NONE ->
                    settings.integer(key).ifPresent(next -> settings.apply(key, () -> provider.startTokensAt(next)));
                case READS_AN_UNDECLARED_KEY -> {
                    settings.integer("lockkit." + name + ".stripes");
                    settings.integer(key).ifPresent(provider::startTokensAt);
                }
                case PARSES_WITHOUT_NAMING_THE_KEY ->
                    settings.string(key).map(Long::parseLong).ifPresent(provider::startTokensAt);
            }
            return provider;
        }

        @Override
        public String describeTarget(ProviderSettings settings) {
            return "a lock table in this JVM";
        }
    }

    /** Reads and declares its key, and refuses a bad value through {@link ProviderSettings}. */
    public static class HonestFactory extends FaultyFactory {
        public HonestFactory() {
            super("kit-honest", Fault.NONE);
        }
    }

    /** {@link Fault#READS_AN_UNDECLARED_KEY}. */
    public static class UndeclaredKeyFactory extends FaultyFactory {
        public UndeclaredKeyFactory() {
            super("kit-undeclared", Fault.READS_AN_UNDECLARED_KEY);
        }
    }

    /** {@link Fault#PARSES_WITHOUT_NAMING_THE_KEY}. */
    public static class UnnamedMalformedValueFactory extends FaultyFactory {
        public UnnamedMalformedValueFactory() {
            super("kit-unnamed", Fault.PARSES_WITHOUT_NAMING_THE_KEY);
        }
    }

    /** The one key of every factory here, under its own name. */
    static String startKey(String name) {
        return "lockkit." + name + ".start-tokens-at";
    }

    /** The contract over the factory named {@code name}, with the same valid and malformed values for each. */
    abstract static class FactoryKit extends LockProviderFactoryContract {
        private final String name;

        FactoryKit(String name) {
            this.name = name;
        }

        @Override
        protected String providerName() {
            return name;
        }

        @Override
        protected Map<String, String> validSettings() {
            return Map.of(startKey(name), "7");
        }

        @Override
        protected Map<String, String> malformedSettings() {
            return Map.of(startKey(name), "soon");
        }
    }

    static class HonestFactoryKit extends FactoryKit {
        HonestFactoryKit() {
            super("kit-honest");
        }
    }

    static class UndeclaredKeyKit extends FactoryKit {
        UndeclaredKeyKit() {
            super("kit-undeclared");
        }
    }

    static class UnnamedMalformedValueKit extends FactoryKit {
        UnnamedMalformedValueKit() {
            super("kit-unnamed");
        }
    }
}
