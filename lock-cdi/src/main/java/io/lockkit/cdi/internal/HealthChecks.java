package io.lockkit.cdi.internal;

/**
 * Whether the MicroProfile Health API is present, for the extensions that add
 * {@link LockkitReadinessCheck} only then. Touches no health class itself.
 */
final class HealthChecks {

    /** The class the extensions add as a bean. */
    static final String CHECK_CLASS = "io.lockkit.cdi.internal.LockkitReadinessCheck";

    private HealthChecks() {}

    /** Whether lock-cdi's class loader sees the MicroProfile Health API (a server's health subsystem, quarkus-smallrye-health). */
    static boolean present() {
        try {
            Class.forName("org.eclipse.microprofile.health.HealthCheck", false, HealthChecks.class.getClassLoader());
            Class.forName("org.eclipse.microprofile.health.Readiness", false, HealthChecks.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
