package io.lockkit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.lockkit.cdi.internal.engine.LockkitConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("IDE completion: the generated configuration metadata names every key lockkit reads")
class ConfigurationMetadataTest {

    @Test
    @DisplayName(
            "every lockkit.* key (lock-cdi's and the Redis and JDBC providers') is in spring-configuration-metadata.json")
    void everyKnownKeyHasMetadata() throws IOException {
        String metadata = lockSpringMetadata();
        Matcher names = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"").matcher(metadata);
        List<String> described = new ArrayList<>();
        while (names.find()) {
            described.add(names.group(1));
        }
        List<String> missing = new ArrayList<>();
        for (String key : LockkitConfig.knownKeys(ConfigurationMetadataTest.class.getClassLoader())) {
            // lockkit.leadership.<name>.lease is the map lockkit.leadership's value's property
            String expected = key.startsWith("lockkit.leadership.") ? "lockkit.leadership" : key;
            if (!described.contains(expected)) {
                missing.add(key);
            }
        }
        assertThat(missing).isEmpty();
    }

    private static String lockSpringMetadata() throws IOException {
        for (URL url : Collections.list(ConfigurationMetadataTest.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                if (text.contains("io.lockkit.spring.LockkitProperties")) {
                    return text;
                }
            }
        }
        throw new AssertionError("no spring-configuration-metadata.json of LockkitProperties");
    }
}
