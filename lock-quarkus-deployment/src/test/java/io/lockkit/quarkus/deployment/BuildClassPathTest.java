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
        collectTestLibraries(root, artifactId, found);
        assertThat(found)
                .as("paths from %s to a test library (Quarkus' own dependencies are Quarkus' business)", artifactId)
                .isEmpty();
        assertThat(root.getChildren()).as("the tree was resolved").isNotEmpty();
    }

    /** The dependency tree of {@code io.lockkit:<artifactId>} as an application's dependency (no test scope). */
    private static DependencyNode tree(String artifactId) throws Exception {
        MavenArtifactResolver resolver = MavenArtifactResolver.builder()
                .setWorkspaceDiscovery(true)
                .setCurrentProject(Path.of("").toAbsolutePath().toString())
                .build();
        String version = Objects.requireNonNull(System.getProperty("lockkit.version"), "lockkit.version");
        CollectRequest request = new CollectRequest()
                .setRoot(new Dependency(new DefaultArtifact("io.lockkit", artifactId, "jar", version), "compile"))
                .setRepositories(resolver.getRepositories());
        return resolver.getSystem()
                .collectDependencies(resolver.getSession(), request)
                .getRoot();
    }

    /**
     * Adds the path to each test library below {@code node}; subtrees of Quarkus' own artifacts are
     * left out (quarkus-core-deployment brings JUnit for continuous testing, whatever the extensions).
     */
    private static void collectTestLibraries(DependencyNode node, String path, List<String> found) {
        for (DependencyNode child : node.getChildren()) {
            Artifact artifact = child.getArtifact();
            if (artifact == null || artifact.getGroupId().equals("io.quarkus")) {
                continue;
            }
            String coordinates = artifact.getGroupId() + ":" + artifact.getArtifactId();
            String here =
                    path + " > " + coordinates + " (" + child.getDependency().getScope() + ")";
            if (TEST_LIBRARIES.stream().anyMatch(coordinates::startsWith)) {
                found.add(here);
            }
            collectTestLibraries(child, here, found);
        }
    }
}
