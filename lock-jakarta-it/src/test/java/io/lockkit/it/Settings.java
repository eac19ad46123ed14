package io.lockkit.it;

import java.nio.file.Path;

/** The system properties Failsafe hands the server tests (see the module's pom.xml). */
final class Settings {

    private Settings() {}

    static String required(String key) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + key + " is not set (run the tests through Maven)");
        }
        return value;
    }

    static Path war() {
        return Path.of(required("lockkit.it.war"));
    }

    static Path work() {
        return Path.of(required("lockkit.it.work"));
    }

    /** The JDK the servers run on: -Dlockkit.it.java-home, else the one running the tests. */
    static Path javaHome() {
        return Path.of(System.getProperty("lockkit.it.java-home", System.getProperty("java.home")));
    }
}
