package io.lockkit.quarkus.deployment;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.ProviderSettings;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.shrinkwrap.api.spec.JavaArchive;

/**
 * A third party's provider as a test deploys it: {@code memo}, the in-JVM provider under another
 * name, with two declared keys; it keeps the label it was built with for the test to read.
 */
public final class MemoProviderFactory implements LockProviderFactory {

    static final String LABEL = "lockkit.memo.label";
    static final String POOL_SIZE = "lockkit.memo.pool.size";

    /** The value of {@link #LABEL} the last provider was built with; "" when it was not set. */
    static final AtomicReference<String> BUILT_WITH = new AtomicReference<>();

    /** The application a test deploys: {@link Counter}, and this factory as a provider service. */
    static void deployWithCounter(JavaArchive jar) {
        jar.addClasses(Counter.class, MemoProviderFactory.class)
                .addAsServiceProvider(LockProviderFactory.class, MemoProviderFactory.class);
    }

    @Override
    public String name() {
        return "memo";
    }

    @Override
    public List<ProviderSetting> settings() {
        return List.of(
                new ProviderSetting(LABEL, null, "A label the provider keeps."),
                new ProviderSetting(POOL_SIZE, "1", "A setting of two segments."));
    }

    @Override
    public LockProvider create(ProviderSettings settings, ProviderEnvironment environment) {
        BUILT_WITH.set(settings.string(LABEL).orElse(""));
        return new LocalLockProvider();
    }

    @Override
    public String describeTarget(ProviderSettings settings) {
        return settings.describe(LABEL, "none");
    }
}
