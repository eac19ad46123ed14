package io.lockkit.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * docs/jakarta-ee.md tells how to see Jedis' log lines on a server without an SLF4J binding: a
 * binding of the same SLF4J generation as the API lock-jedis brings. A Jedis upgrade that moves to
 * another slf4j-api makes that advice wrong; this test then fails.
 */
@DisplayName("the Jakarta EE guide's SLF4J binding matches the slf4j-api lock-jedis brings")
class LoggingDocsTest {

    private static final Path PAGE = Path.of("../docs/jakarta-ee.md");

    @Test
    @DisplayName("the guide's slf4j-jdk14 has the version of the slf4j-api on lock-jedis's class path")
    void bindingMatchesTheApi() throws IOException, URISyntaxException {
        Path api = Path.of(org.slf4j.Logger.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        String version;
        try (JarFile jar = new JarFile(api.toFile())) {
            version = jar.getManifest().getMainAttributes().getValue("Bundle-Version");
        }
        assertThat(version).as("slf4j-api from %s", api).isNotBlank();
        String page = Files.readString(PAGE);
        assertThat(page).contains("<artifactId>slf4j-jdk14</artifactId>\n  <version>" + version + "</version>");
    }
}
