package io.lockkit;

/**
 * A lock won by a wait: its fencing token, and when the request that won it was sent, on the
 * factory's ticker (the lease runs from there). The request is the waiter's own attempt, or a
 * release by this client that granted the lock to the wait outright (a direct grant). Immutable.
 */
record Grant(long token, long sentNanos) {

    // Written out, as in HoldKey: a record's generated equals/hashCode goes
    // through java.lang.runtime.ObjectMethods, whose cache on JDK 17 keeps the class (and with it a
    // Jakarta EE application's class loader) alive after undeploy.
    @Override
    public boolean equals(Object o) {
        return o instanceof Grant other && token == other.token && sentNanos == other.sentNanos;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(token) * 31 + Long.hashCode(sentNanos);
    }
}
