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

/** The user guide's configuration reference, docs/configuration.md, lists exactly the keys lock-cdi reads. */
@DisplayName("docs/configuration.md documents every lockkit.* key")
class ConfigurationReferenceTest {

    /** The first cell of a table row: {@code | `lockkit.x` | …}. */
    private static final Pattern ROW_KEY =
            Pattern.compile("^\\|\\s*`(lockkit\\.[a-z.<>-]+)`\\s*\\|", Pattern.MULTILINE);

    static List<String> documentedKeys(String markdown) {
        List<String> keys = new ArrayList<>();
        Matcher row = ROW_KEY.matcher(markdown);
        while (row.find()) {
            keys.add(row.group(1));
        }
        return keys;
    }

    @Test
    @DisplayName("its tables have one row per key LockkitConfig reads, and no other")
    void everyKeyHasARow() throws IOException {
        // Surefire runs in the module's directory; the guide is at the repository's root.
        String reference = Files.readString(Path.of("../docs/configuration.md"), StandardCharsets.UTF_8);
        assertThat(documentedKeys(reference))
                .containsExactlyInAnyOrderElementsOf(
                        LockkitConfig.knownKeys(getClass().getClassLoader()));
    }

    @Test
    @DisplayName("the check reads a row's key and ignores keys mentioned elsewhere")
    void readsFirstCellsOnly() {
        String markdown = String.join(
                "\n",
                "| key | type |",
                "|---|---|",
                "| `lockkit.redis.uri` | URI, like `lockkit.redis.url` is not |",
                "Text naming `lockkit.startup`.",
                "| `lockkit.watchdog-lease` | duration |");
        assertThat(documentedKeys(markdown)).containsExactly("lockkit.redis.uri", "lockkit.watchdog-lease");
    }
}
