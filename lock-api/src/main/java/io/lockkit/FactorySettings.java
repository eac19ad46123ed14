package io.lockkit;

import io.lockkit.spi.LockProvider;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link DistributedLockFactory.Builder} was told, as {@link ProviderLockFactory} reads it:
 * the builder checks every value, this holds them. Not thread-safe; read once, by the factory's
 * constructor.
 */
final class FactorySettings {
    final LockProvider provider;
    Ticker ticker = Ticker.system();
    Clock clock = Clock.systemUTC();

    @Nullable
    ScheduledExecutorService scheduler;

    @Nullable
    ThreadFactory threadFactory;

    @Nullable
    Executor asyncExecutor;

    LockOptions defaultOptions = LockOptions.DEFAULTS;
    Consumer<LockLostException> lossListener = e -> {};
    Duration subscriptionLinger = DistributedLockFactory.Builder.DEFAULT_SUBSCRIPTION_LINGER;
    final List<LockObserver> observers = new ArrayList<>();

    @Nullable
    String clientId;

    FactorySettings(LockProvider provider) {
        this.provider = provider;
    }
}
