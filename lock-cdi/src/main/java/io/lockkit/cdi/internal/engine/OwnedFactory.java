package io.lockkit.cdi.internal.engine;

import io.lockkit.DistributedLockFactory;
import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The factory the library built for an application, which it owns: asked one read-only question at
 * start, so an unreachable backend fails the deployment naming the setting to fix, and closed with a
 * drain at undeploy, so a {@code @Locked} method still running keeps its lock until it returns.
 * Made over the provider first and {@linkplain #open opened} with the factory, so that the eager
 * start asks its question before the factory exists (and before it logs that it started).
 */
public final class OwnedFactory {

    private static final System.Logger LOG = System.getLogger(OwnedFactory.class.getName());
    private static final String STARTUP_CHECK_NAME = "lockkit-startup-check";

    private @Nullable DistributedLockFactory factory;
    private final LockProvider provider;
    private final LockkitConfig config;
    /** What the provider is, for messages: the application's bean or the configured backend. */
    private final String backend;
    /** The provider's keys the configuration sets, for messages: {@code " (lockkit.jdbc.table set in …)"}, or empty. */
    private final String settingsInPlay;

    private final Duration drainTimeout;
    /** Removes the factory's meters from the application's registry; null when none were bound. */
    private @Nullable Runnable unbindMetrics;
    /** Whether {@link #check} passed. */
    private volatile boolean checked;

    public OwnedFactory(
            LockProvider provider,
            LockkitConfig config,
            String backend,
            List<String> providerKeys,
            Duration drainTimeout) {
        this.provider = provider;
        this.config = config;
        this.backend = backend;
        List<String> set = providerKeys.stream()
                .filter(key -> config.string(key).isPresent())
                .map(config::name)
                .toList();
        this.settingsInPlay = set.isEmpty() ? "" : " (" + String.join(", ", set) + " set in " + config.origin() + ")";
        this.drainTimeout = drainTimeout;
    }

    /** Completes this with the factory built over the provider (once, before it is shared). */
    public OwnedFactory open(DistributedLockFactory factory, @Nullable Runnable unbindMetrics) {
        this.factory = factory;
        this.unbindMetrics = unbindMetrics;
        return this;
    }

    public DistributedLockFactory factory() {
        DistributedLockFactory opened = factory;
        if (opened == null) {
            throw new IllegalStateException("lockkit: the lock factory is not built yet");
        }
        return opened;
    }

    /** Whether the start-up question was asked and answered. */
    public boolean checked() {
        return checked;
    }

    /**
     * Asks the backend one read-only question.
     *
     * @throws IllegalStateException naming the backend's settings when it does not answer
     */
    public void check() {
        try {
            provider.inspect(STARTUP_CHECK_NAME);
            checked = true;
        } catch (UnsupportedOperationException e) {
            // a provider without inspection: nothing cheap to ask
            checked = true;
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "lockkit: the lock backend did not answer at application start: " + backend + settingsInPlay + ": "
                            + e.getMessage() + ". Fix the setting or start the backend; "
                            + config.name(LockkitConfig.STARTUP)
                            + "=lazy starts without it." + config.typoHints(),
                    e);
        }
    }

    /** Lets running {@code @Locked} methods finish (up to the drain timeout), closes the factory and removes its meters. */
    public void close() {
        DistributedLockFactory opened = factory;
        try {
            if (opened != null) {
                opened.close(drainTimeout);
            } else {
                provider.close();
            }
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.WARNING, "lockkit: closing the lock factory failed", e);
            throw e;
        } finally {
            Runnable metrics = unbindMetrics;
            if (metrics != null) {
                removeMeters(metrics);
            }
        }
    }

    /** After the factory closed (or failed to build): its meters leave the application's registry; never fails. */
    public static void removeMeters(Runnable metrics) {
        try {
            metrics.run();
        } catch (RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.WARNING, "lockkit: removing the lock meters from the registry failed", e);
        }
    }
}
