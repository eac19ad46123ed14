package io.lockkit;

import java.time.Clock;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What a {@link LockLeadership} (and its {@link Terms}) uses of its factory, made once per factory:
 * the gate it checks, the provider's capabilities, the default options its own derive from, the
 * acquirer its campaign waits with, the holds that confirm a late term and renew it, the events it
 * reports, the ticker and wall clock of its terms, and the scheduler its timers run on. Immutable;
 * each part is thread-safe.
 */
record LeadershipServices(
        Gate gate,
        ProviderCalls calls,
        LockOptions defaults,
        Acquirer acquirer,
        Holds holds,
        Events events,
        Ticker ticker,
        Clock clock,
        ScheduledExecutorService scheduler) {
    // Never compared, hashed or printed: the generated equals/hashCode/toString, which go through
    // java.lang.runtime.ObjectMethods (whose JDK 17 cache would keep an undeployed application's
    // class loader, see HoldKey), never run.
}
