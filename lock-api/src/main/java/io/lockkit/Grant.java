package io.lockkit;

/**
 * A lock won by a wait: its fencing token, when the request that set its lease was sent, on the
 * factory's ticker (the lease runs from there), and how long that lease is when it is shorter than
 * the one asked for. The request is the waiter's own attempt, a release by this client that
 * granted the lock to the wait outright (a direct grant), or, for a grant heard from the backend
 * ({@link #heard}), the wait's latest attempt that found the lock busy, which the backend answered
 * before it granted the lock. Immutable.
 *
 * @param token the fencing token
 * @param sentNanos when the request the lease runs from was sent; unused when {@code heard}
 * @param leaseNanos the lease running from then, when shorter than the one asked for; else 0
 * @param heard whether the grant was heard from the backend: the lease then runs from the wait's
 *     own latest busy attempt, which the wait fills in
 */
record Grant(long token, long sentNanos, long leaseNanos, boolean heard) {

    /** A grant whose lease is the one asked for, running from {@code sentNanos}. */
    Grant(long token, long sentNanos) {
        this(token, sentNanos, 0, false);
    }

    /** A grant the backend announced, with a lease of {@code leaseNanos} (0: the one asked for). */
    static Grant heard(long token, long leaseNanos) {
        return new Grant(token, 0, leaseNanos, true);
    }

    // Written out, as in HoldKey: a record's generated equals/hashCode goes
    // through java.lang.runtime.ObjectMethods, whose cache on JDK 17 keeps the class (and with it a
    // Jakarta EE application's class loader) alive after undeploy.
    @Override
    public boolean equals(Object o) {
        return o instanceof Grant other
                && token == other.token
                && sentNanos == other.sentNanos
                && leaseNanos == other.leaseNanos
                && heard == other.heard;
    }

    @Override
    public int hashCode() {
        return (Long.hashCode(token) * 31 + Long.hashCode(sentNanos)) * 31
                + Long.hashCode(leaseNanos)
                + (heard ? 1 : 0);
    }
}
