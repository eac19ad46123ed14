package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.cdi.internal.engine.LockkitConfig;
import io.lockkit.quarkus.LockkitRuntimeConfig;
import io.smallrye.config.WithName;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The mapping cannot fall behind lockkit: every key lock-cdi and the providers read has its quarkus.lockkit twin. */
@DisplayName("LockkitRuntimeConfig declares the quarkus.lockkit twin of every lockkit key")
class MappingCoversLockkitKeysTest {

    @Test
    @DisplayName("the mapping's keys are lockkit's keys (lock-cdi's, lock-jedis', lock-jdbc's) under quarkus.lockkit")
    void mappingMatchesLockkitKeys() {
        List<String> expected = new ArrayList<>();
        for (String key : LockkitConfig.knownKeys(getClass().getClassLoader())) {
            expected.add("quarkus." + (key.equals("lockkit.redis.tls") ? "lockkit.redis.tls.enabled" : key));
        }
        assertThat(expected).as("lock-jdbc's keys are among them").contains("quarkus.lockkit.jdbc.table");
        assertThat(keys("quarkus.lockkit", LockkitRuntimeConfig.class)).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** The keys a mapping interface declares, a map's key written {@code <name>} as lockkit writes it. */
    private static List<String> keys(String prefix, Class<?> mapping) {
        List<String> keys = new ArrayList<>();
        for (Method method : mapping.getDeclaredMethods()) {
            if (method.isSynthetic() || method.isDefault() || method.getParameterCount() > 0) {
                continue;
            }
            WithName name = method.getAnnotation(WithName.class);
            String key = prefix + "." + (name != null ? name.value() : kebab(method.getName()));
            Type type = method.getGenericReturnType();
            if (method.getReturnType() == Optional.class) {
                keys.add(key);
            } else if (method.getReturnType() == Map.class) {
                Type value = ((ParameterizedType) type).getActualTypeArguments()[1];
                keys.addAll(keys(key + ".<name>", (Class<?>) value));
            } else {
                keys.addAll(keys(key, method.getReturnType()));
            }
        }
        return keys;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }
}
