package io.lockkit.it;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** The application servers the tests run on, with the Maven coordinates of their distributions. */
enum ServerKind {
    WILDFLY("wildfly", "org.wildfly", "wildfly-dist", "lockkit.it.wildfly.version", "zip", "Jakarta EE 10"),
    WILDFLY_PREVIEW(
            "wildfly-preview",
            "org.wildfly",
            "wildfly-preview-dist",
            "lockkit.it.wildfly.version",
            "zip",
            "Jakarta EE 11"),
    PAYARA_MICRO(
            "payara-micro",
            "fish.payara.extras",
            "payara-micro",
            "lockkit.it.payara-micro.version",
            "jar",
            "Jakarta EE 10");

    final String id;
    final String groupId;
    final String artifactId;
    final String versionProperty;
    final String type;
    final String platform;

    ServerKind(String id, String groupId, String artifactId, String versionProperty, String type, String platform) {
        this.id = id;
        this.groupId = groupId;
        this.artifactId = artifactId;
        this.versionProperty = versionProperty;
        this.type = type;
        this.platform = platform;
    }

    String version() {
        return Settings.required(versionProperty);
    }

    String coordinates() {
        return groupId + ":" + artifactId + ":" + version() + ":" + type;
    }

    /** Where the distribution lies in the local Maven repository (it may not be there). */
    Path distribution() {
        return Settings.repository()
                .resolve(groupId.replace('.', '/'))
                .resolve(artifactId)
                .resolve(version())
                .resolve(artifactId + "-" + version() + "." + type);
    }

    /** Whether -Dlockkit.it.servers selects this kind ("all" by default, "none", or a comma-separated list of ids). */
    boolean selected() {
        String value = System.getProperty("lockkit.it.servers", "all").trim().toLowerCase(Locale.ROOT);
        if (value.isEmpty() || value.equals("all")) {
            return true;
        }
        Set<String> ids = Arrays.stream(value.split(",")).map(String::trim).collect(Collectors.toSet());
        return ids.contains(id);
    }
}
