package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.bootstrap.resolver.maven.MavenArtifactResolver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.eclipse.aether.artifact.Artifact;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.collection.CollectRequest;
import org.eclipse.aether.graph.Dependency;
import org.eclipse.aether.graph.DependencyNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the extension puts on an application's class paths, as Maven resolves it from this
 * workspace's POMs (the build under test, not what an earlier build installed).
 */
class BuildClassPathTest {

    /** Test frameworks and fixtures: none of them may reach an application through lockkit. */
    private static final List<String> TEST_LIBRARIES = List.of(
            "org.junit", "junit:", "org.assertj:", "org.awaitility:", "org.testcontainers:", "io.lockkit:lock-testkit");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lock-quarkus", "lock-quarkus-deployment"})
    void lockkitBringsNoTestLibraryToAnApplication(String artifactId) throws Exception {
        DependencyNode root = tree(artifactId);
        List<String> found = new ArrayList<>();
        collect(root, artifactId, TEST_LIBRARIES, found);
        assertThat(found)
                .as("paths from %s to a test library (Quarkus' own dependencies are Quarkus' business)", artifactId)
                .isEmpty();
        assertThat(root.getChildren()).as("the tree was resolved").isNotEmpty();
    }

    /** Providers (and their clients) are the application's to add: a JDBC-only application has no Jedis. */
    private static final List<String> PROVIDERS =
            List.of("redis.clients:", "io.lockkit:lock-jedis", "io.lockkit:lock-jdbc");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lock-quarkus", "lock-quarkus-deployment"})
    void lockkitBringsNoProviderToAnApplication(String artifactId) throws Exception {
        List<String> found = new ArrayList<>();
        collect(tree(artifactId), artifactId, PROVIDERS, found);
        assertThat(found)
                .as("paths from %s to a provider or its client", artifactId)
                .isEmpty();
    }

    /** The dependency tree of {@code io.lockkit:<artifactId>} as an application's dependency (no test scope). */
    private static DependencyNode tree(String artifactId) throws Exception {
        MavenArtifactResolver resolver = MavenArtifactResolver.builder()
                .setWorkspaceDiscovery(true)
                .setCurrentProject(Path.of("").toAbsolutePath().toString())
                .build();
        String version = Objects.requireNonNull(System.getProperty("lockkitVersion"), "lockkitVersion");
        CollectRequest request = new CollectRequest()
                .setRoot(new Dependency(new DefaultArtifact("io.lockkit", artifactId, "jar", version), "compile"))
                .setRepositories(resolver.getRepositories());
        return resolver.getSystem()
                .collectDependencies(resolver.getSession(), request)
                .getRoot();
    }

    /**
     * Adds the path to each artifact below {@code node} that one of {@code banned} starts; subtrees of Quarkus' own artifacts are
     * left out (quarkus-core-deployment brings JUnit for continuous testing, whatever the extensions).
     */
    private static void collect(DependencyNode node, String path, List<String> banned, List<String> found) {
        for (DependencyNode child : node.getChildren()) {
            Artifact artifact = child.getArtifact();
            if (artifact == null || artifact.getGroupId().equals("io.quarkus")) {
                continue;
            }
            String coordinates = artifact.getGroupId() + ":" + artifact.getArtifactId();
            String here =
                    path + " > " + coordinates + " (" + child.getDependency().getScope() + ")";
            if (banned.stream().anyMatch(coordinates::startsWith)) {
                found.add(here);
            }
            collect(child, here, banned, found);
        }
    }
}
