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

    // Written out, as in HoldKey: identity is all this record needs, and the generated methods
    // would go through java.lang.runtime.ObjectMethods (see HoldKey).
    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
