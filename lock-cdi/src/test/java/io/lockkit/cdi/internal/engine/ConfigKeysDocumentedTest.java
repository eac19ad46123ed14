package io.lockkit.cdi.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The configuration table in the io.lockkit.cdi package Javadoc lists exactly the keys lock-cdi reads. */
@DisplayName("the io.lockkit.cdi Javadoc documents every lockkit.* key")
class ConfigKeysDocumentedTest {

    @Test
    @DisplayName("its table has one row per key LockkitConfig reads, and no other")
    void everyKeyHasARow() throws IOException {
        // Surefire runs in the module's directory.
        String javadoc =
                Files.readString(Path.of("src/main/java/io/lockkit/cdi/package-info.java"), StandardCharsets.UTF_8);
        List<String> documented = new ArrayList<>();
        Matcher row = Pattern.compile("<tr><td>(.*?)</td>", Pattern.DOTALL).matcher(javadoc);
        while (row.find()) {
            Matcher key = Pattern.compile("\\{@code (lockkit\\.[a-z.<>-]+)\\}").matcher(row.group(1));
            while (key.find()) {
                documented.add(key.group(1));
            }
        }
        assertThat(documented)
                .containsExactlyInAnyOrderElementsOf(
                        LockkitConfig.knownKeys(getClass().getClassLoader()));
    }
}
