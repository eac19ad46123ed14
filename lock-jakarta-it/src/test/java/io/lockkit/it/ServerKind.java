package io.lockkit.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The application servers the tests run on, with the Maven coordinates of their distributions
 * (test dependencies of this module: Maven resolves them, the pom hands their paths over).
 */
enum ServerKind {
    WILDFLY("wildfly", "org.wildfly:wildfly-dist:zip", "Jakarta EE 10"),
    WILDFLY_PREVIEW("wildfly-preview", "org.wildfly:wildfly-preview-dist:zip", "Jakarta EE 11"),
    PAYARA_MICRO("payara-micro", "fish.payara.extras:payara-micro:jar", "Jakarta EE 10"),
    PAYARA_SERVER("payara-server", "fish.payara.distributions:payara:zip", "Jakarta EE 10"),
    GLASSFISH("glassfish", "org.glassfish.main.distributions:glassfish:zip", "Jakarta EE 10"),
    OPEN_LIBERTY("open-liberty", "io.openliberty:openliberty-runtime:zip", "Jakarta EE 10, concurrent-3.0");

    final String id;
    final String artifact;
    final String platform;

    ServerKind(String id, String artifact, String platform) {
        this.id = id;
        this.artifact = artifact;
        this.platform = platform;
    }

    /** The distribution's version, from the module's pom. */
    String version() {
        for (String entry : Settings.required("lockkit.it.versions").split(",")) {
            String[] pair = entry.split("=", 2);
            if (pair[0].strip().equals(id)) {
                return pair[1].strip();
            }
        }
        throw new IllegalStateException("lockkit.it.versions names no version for " + id);
    }

    String coordinates() {
        String[] parts = artifact.split(":");
        return parts[0] + ":" + parts[1] + ":" + version() + ":" + parts[2];
    }

    /**
     * The distribution Maven resolved for this module.
     *
     * @throws IllegalStateException when the build did not hand it over: a server test must run or
     *     fail, never skip because its server is missing
     */
    Path distribution() {
        Path path = Path.of(Settings.required("lockkit.it.dist." + id));
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException(coordinates() + " is not at " + path
                    + " although Maven resolved it; run the tests through Maven (mvn verify)");
        }
        return path;
    }

    /** Whether -Dlockkit.it.servers selects this kind ("all" by default, "none", or a comma-separated list of ids). */
    boolean selected() {
        String value = System.getProperty("lockkit.it.servers", "all").trim().toLowerCase(Locale.ROOT);
        if (value.isEmpty() || value.equals("all")) {
            return true;
        }
        Set<String> ids = Arrays.stream(value.split(",")).map(String::trim).collect(Collectors.toSet());
        for (String wanted : ids) {
            if (!wanted.equals("none") && Arrays.stream(values()).noneMatch(k -> k.id.equals(wanted))) {
                throw new IllegalArgumentException("-Dlockkit.it.servers names an unknown server '" + wanted
                        + "'; known: all, none, "
                        + Arrays.stream(values()).map(k -> k.id).collect(Collectors.joining(", ")));
            }
        }
        return ids.contains(id);
    }
}
