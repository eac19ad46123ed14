package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.jdbc.JdbcLockProviderFactory;
import io.lockkit.jedis.JedisLockProviderFactory;
import io.quarkus.builder.BuildContext;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.nativeimage.NativeImageResourceBuildItem;
import io.quarkus.deployment.builditem.nativeimage.NativeImageResourcePatternsBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ServiceProviderBuildItem;
import io.quarkus.test.QuarkusUnitTest;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The native-image hints as build items, on the JVM (no GraalVM here): every Lua script and SQL file
 * of the providers' jars is included, Jedis' version resource too, and the providers are services.
 */
@DisplayName("native image: the extension registers the providers' resources and services")
class NativeImageHintsTest {

    // The build step runs in the build's class loader, the tests in the application's: what the
    // build produced is handed over through system properties, one value a line.
    private static final String PATTERNS = "test.lockkit.native.include-patterns";
    private static final String RESOURCES = "test.lockkit.native.resources";
    private static final String PROVIDERS = "test.lockkit.native.providers";

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Counter.class))
            .overrideConfigKey("quarkus.lockkit.devservices.enabled", "false")
            .overrideConfigKey("quarkus.lockkit.startup", "lazy")
            .addBuildChainCustomizer(chain -> chain.addBuildStep(NativeImageHintsTest::collect)
                    .consumes(NativeImageResourcePatternsBuildItem.class)
                    .consumes(NativeImageResourceBuildItem.class)
                    .consumes(ServiceProviderBuildItem.class)
                    .produces(FeatureBuildItem.class)
                    .build());

    /** A build step of the test: keeps what the build produced. */
    static void collect(BuildContext context) {
        List<String> patterns = new ArrayList<>();
        for (NativeImageResourcePatternsBuildItem item :
                context.consumeMulti(NativeImageResourcePatternsBuildItem.class)) {
            patterns.addAll(item.getIncludePatterns());
        }
        List<String> resources = new ArrayList<>();
        for (NativeImageResourceBuildItem item : context.consumeMulti(NativeImageResourceBuildItem.class)) {
            resources.addAll(item.getResources());
        }
        List<String> providers = new ArrayList<>();
        for (ServiceProviderBuildItem item : context.consumeMulti(ServiceProviderBuildItem.class)) {
            if (item.serviceDescriptorFile().endsWith(NativeImageProcessor.PROVIDER_SERVICE)
                    || item.serviceDescriptorFile().endsWith(NativeImageProcessor.RUNTIME_SERVICE)
                    || item.serviceDescriptorFile().endsWith(NativeImageProcessor.NAMES_SERVICE)) {
                providers.addAll(item.providers());
            }
        }
        System.setProperty(PATTERNS, String.join("\n", patterns));
        System.setProperty(RESOURCES, String.join("\n", resources));
        System.setProperty(PROVIDERS, String.join("\n", providers));
        context.produce(new FeatureBuildItem("lockkit-native-hints-test"));
    }

    private static List<String> produced(String property) {
        return List.of(System.getProperty(property, "").split("\n"));
    }

    @Test
    @DisplayName("every .lua resource of lock-jedis and .sql resource of lock-jdbc is included by a pattern")
    void providerResourcesIncluded() throws Exception {
        List<String> files = new ArrayList<>();
        files.addAll(resources(JedisLockProviderFactory.class, ".lua"));
        files.addAll(resources(JdbcLockProviderFactory.class, ".sql"));
        assertThat(files)
                .as("the providers' resources")
                .contains("io/lockkit/jedis/internal/acquire.lua", "io/lockkit/jdbc/postgresql/statements.sql")
                .hasSizeGreaterThan(10);
        List<Pattern> patterns =
                produced(PATTERNS).stream().map(Pattern::compile).toList();
        assertThat(files)
                .allSatisfy(file -> assertThat(patterns)
                        .as("a pattern including %s", file)
                        .anyMatch(p -> p.matcher(file).matches()));
        assertThat(patterns)
                .as("nothing of the application's own")
                .noneMatch(p -> p.matcher("application.properties").matches());
    }

    @Test
    @DisplayName("Jedis' version resource is listed, and Jedis has it")
    void jedisVersionResource() {
        assertThat(produced(RESOURCES)).contains(NativeImageProcessor.JEDIS_VERSION_RESOURCE);
        assertThat(JedisLockProviderFactory.class
                        .getClassLoader()
                        .getResource(NativeImageProcessor.JEDIS_VERSION_RESOURCE))
                .as("Jedis still has that resource")
                .isNotNull();
    }

    @Test
    @DisplayName("lock-jedis' and lock-jdbc's LockProviderFactory are registered as services")
    void providersRegistered() {
        assertThat(produced(PROVIDERS))
                .contains(JedisLockProviderFactory.class.getName(), JdbcLockProviderFactory.class.getName());
    }

    @Test
    @DisplayName("lock-quarkus' LockedRuntime (event-loop guard, Uni and Multi) and ConfigNames (quarkus.lockkit.* in"
            + " messages) are registered as services")
    void lockedRuntimeRegistered() {
        assertThat(produced(PROVIDERS))
                .contains(
                        "io.lockkit.quarkus.internal.VertxLockedRuntime",
                        "io.lockkit.quarkus.internal.QuarkusConfigNames");
    }

    /** The resources ending with {@code suffix} in the jar (or directory) holding {@code type}. */
    private static List<String> resources(Class<?> type, String suffix)
            throws IOException, URISyntaxException, ClassNotFoundException {
        // From the test's class path: the application's class loader may not say where a class came from.
        Class<?> onClassPath = Class.forName(type.getName(), false, ClassLoader.getSystemClassLoader());
        Path location = Path.of(
                onClassPath.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isDirectory(location)) {
            return list(location, suffix);
        }
        try (FileSystem jar = FileSystems.newFileSystem(location)) {
            return list(jar.getPath("/"), suffix);
        }
    }

    private static List<String> list(Path root, String suffix) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(p -> p.toString().endsWith(suffix))
                    .map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .sorted()
                    .toList();
        }
    }
}
