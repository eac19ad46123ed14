package io.lockkit;

/** A thread owner's hold of a name (see {@link ThreadHolds} and {@link Unsettled}). */
record HoldKey(String name, String owner) {
    // Written out: a record's generated equals/hashCode goes through java.lang.runtime.ObjectMethods,
    // whose cache on JDK 17 keeps the class, and with it a Jakarta EE application's class
    // loader, alive after undeploy.
    @Override
    public boolean equals(Object o) {
        return o instanceof HoldKey other && name.equals(other.name) && owner.equals(other.owner);
    }

    @Override
    public int hashCode() {
        return 31 * name.hashCode() + owner.hashCode(); // Objects.hash would allocate its varargs array
    }
}
