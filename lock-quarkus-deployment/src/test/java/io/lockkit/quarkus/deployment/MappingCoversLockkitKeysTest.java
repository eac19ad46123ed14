package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.quarkus.LockkitBuildTimeConfig;
import io.lockkit.quarkus.LockkitRuntimeConfig;
import io.lockkit.quarkus.internal.OtherProviderKeys;
import io.lockkit.quarkus.internal.QuarkusConfigNames;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The mapping cannot fall behind lockkit: every key lock-cdi and the providers read has its quarkus.lockkit twin. */
@DisplayName("LockkitRuntimeConfig declares the quarkus.lockkit twin of every lockkit key")
class MappingCoversLockkitKeysTest {

    /** lockkit's keys whose twins are build-time switches, as Quarkus' extensions have them. */
    private static final List<String> BUILD_TIME_TWINS = List.of("lockkit.health.enabled", "lockkit.metrics.enabled");

    @Test
    @DisplayName(
            "the mappings' keys are lockkit's keys (lock-cdi's, lock-jedis', lock-jdbc's) under quarkus.lockkit: the"
                    + " health and metrics switches at build time, the rest at run time")
    void mappingMatchesLockkitKeys() {
        List<String> runTime = new ArrayList<>();
        for (String key : LockkitConfig.knownKeys(getClass().getClassLoader())) {
            if (!BUILD_TIME_TWINS.contains(key)) {
                runTime.add("quarkus." + (key.equals("lockkit.redis.tls") ? "lockkit.redis.tls.enabled" : key));
            }
        }
        assertThat(runTime).as("lock-jdbc's keys are among them").contains("quarkus.lockkit.jdbc.table");
        assertThat(keys("quarkus.lockkit", LockkitRuntimeConfig.class)).containsExactlyInAnyOrderElementsOf(runTime);
        List<String> buildTime = keys("quarkus.lockkit", LockkitBuildTimeConfig.class);
        assertThat(buildTime)
                .filteredOn(key -> !key.startsWith("quarkus.lockkit.devservices."))
                .containsExactlyInAnyOrderElementsOf(
                        BUILD_TIME_TWINS.stream().map(key -> "quarkus." + key).toList());
        assertThat(new QuarkusConfigNames().runtimeKeys())
                .as("the Dev Services keys lockkit offers as what a mistyped key means")
                .map(key -> "quarkus." + key)
                .containsExactlyInAnyOrderElementsOf(buildTime.stream()
                        .filter(key -> key.startsWith("quarkus.lockkit.devservices."))
                        .toList());
    }

    @Test
    @DisplayName("another provider's section is any name under quarkus.lockkit but the mappings' own members")
    void otherProvidersSectionsAreTheRest() {
        List<String> members = new ArrayList<>();
        for (Class<?> mapping : List.of(LockkitRuntimeConfig.class, LockkitBuildTimeConfig.class)) {
            for (String key : keys("quarkus.lockkit", mapping)) {
                members.add(key.substring("quarkus.lockkit.".length()).split("\\.")[0]);
            }
        }
        assertThat(OtherProviderKeys.MAPPED).containsExactlyInAnyOrderElementsOf(new java.util.TreeSet<>(members));
    }

    /**
     * The keys a mapping interface declares, a map's key written {@code <name>} as lockkit writes it; not
     * the catch-all of other providers' sections (a {@link WithParentName} map).
     */
    private static List<String> keys(String prefix, Class<?> mapping) {
        List<String> keys = new ArrayList<>();
        for (Method method : mapping.getDeclaredMethods()) {
            if (method.isSynthetic()
                    || method.isDefault()
                    || method.getParameterCount() > 0
                    || method.isAnnotationPresent(WithParentName.class)) {
                continue;
            }
            WithName name = method.getAnnotation(WithName.class);
            String key = prefix + "." + (name != null ? name.value() : kebab(method.getName()));
            Type type = method.getGenericReturnType();
            if (method.getReturnType() == Map.class) {
                Type value = ((ParameterizedType) type).getActualTypeArguments()[1];
                keys.addAll(keys(key + ".<name>", (Class<?>) value));
            } else if (method.getReturnType().isInterface()
                    && method.getReturnType().getName().startsWith("io.lockkit.")) {
                keys.addAll(keys(key, method.getReturnType())); // a group of keys
            } else {
                keys.add(key); // Optional, List, OptionalInt, boolean: one key
            }
        }
        return keys;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }
}
