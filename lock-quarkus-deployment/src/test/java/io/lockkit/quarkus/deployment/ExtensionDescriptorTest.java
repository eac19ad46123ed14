package io.lockkit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The extension's catalog entry (the runtime jar's META-INF/quarkus-extension.yaml, as the build completed it). */
@DisplayName("the extension descriptor names its configuration prefix and a category of the catalog's own")
class ExtensionDescriptorTest {

    @Test
    @DisplayName("config lists quarkus.lockkit., and the categories are data and integration, not miscellaneous")
    void configPrefixAndCategories() throws IOException {
        String descriptor = lockkitDescriptor();
        List<String> config = listUnder(descriptor, "config");
        List<String> categories = listUnder(descriptor, "categories");
        assertThat(config).containsExactly("quarkus.lockkit.");
        assertThat(categories).containsExactly("data", "integration");
    }

    /** The descriptor of the extension named lockkit among those on the class path. */
    private static String lockkitDescriptor() throws IOException {
        List<String> found = new ArrayList<>();
        for (URL url : Collections.list(
                ExtensionDescriptorTest.class.getClassLoader().getResources("META-INF/quarkus-extension.yaml"))) {
            try (InputStream in = url.openStream()) {
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                if (text.lines().anyMatch(line -> line.equals("name: \"lockkit\""))) {
                    found.add(text);
                }
            }
        }
        assertThat(found).as("lockkit's descriptor").hasSize(1);
        return found.get(0);
    }

    /** The items of the YAML list under {@code key} (one level below metadata), unquoted. */
    private static List<String> listUnder(String yaml, String key) {
        List<String> items = new ArrayList<>();
        boolean in = false;
        for (String line : yaml.lines().toList()) {
            String trimmed = line.trim();
            if (trimmed.equals(key + ":")) {
                in = true;
            } else if (in && trimmed.startsWith("- ")) {
                items.add(trimmed.substring(2).replace("\"", ""));
            } else if (in) {
                break;
            }
        }
        return items;
    }
}
