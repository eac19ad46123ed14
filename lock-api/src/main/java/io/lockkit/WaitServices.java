package io.lockkit;

/**
 * What a {@link Wait} (and an {@link AsyncWait}) uses of its factory, made once per factory: the
 * ticker its deadline runs on, the provider's attempts, the gate it checks, the holds that confirm or
 * give back what it won, the rooms where it is woken, the count of waits in flight that close awaits,
 * the abandons that take it off the backend's queue, and the events it reports. Immutable; each part
 * is thread-safe.
 */
record WaitServices(
        Ticker ticker,
        ProviderCalls calls,
        Gate gate,
        Holds holds,
        WaitQueues rooms,
        InFlight inFlight,
        Abandons abandons,
        Events events) {
    // Never compared, hashed or printed: the generated equals/hashCode/toString, which go through
    // java.lang.runtime.ObjectMethods (whose JDK 17 cache would keep an undeployed application's
    // class loader, see HoldKey), never run.
}
