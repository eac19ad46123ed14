package io.lockkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Released migrations never change: a Flyway or Liquibase user who applied one would get a checksum
 * failure on upgrade, and createSchema(true) would skip the change on every database that has the
 * version already. This test holds the SHA-256 of each released file (line ends normalized to LF,
 * as the tools' own checksums are); a change of the schema is a new file V<n+1>__<what>.sql, listed
 * by its dialect and added here when it is released. Unreleased files (none now) may change.
 */
class ReleasedMigrationsTest {

    /** Every released migration (path in the jar) and its SHA-256: 0.1.0 releases version 1 of each dialect. */
    private static final Map<String, String> RELEASED = Map.of(
            "/io/lockkit/jdbc/postgresql/migration/V1__lockkit_locks.sql",
                    "ebd911c4b5a1c12ee291bafecfbb46e6e33041f6f7b3035acd91b7c3514c8535",
            "/io/lockkit/jdbc/h2/migration/V1__lockkit_locks.sql",
                    "fe6dc299070204a16a9a488adde312e5b80b7438a226e9a7c42a6474ff40efc6",
            "/io/lockkit/jdbc/mariadb/migration/V1__lockkit_locks.sql",
                    "c3f2f40096a922fe6d19c82af1120d3e55c46de0a82bbb8bf8a2996351b878df");

    private static List<Dialect> dialects() {
        Dialect.Context context = new Dialect.Context(
                SqlFile.DEFAULT_TABLE,
                Duration.ofSeconds(2),
                Duration.ofSeconds(2),
                SqlFile.DEFAULT_TABLE,
                "origin",
                Duration.ofMillis(250));
        return List.of(new PostgresDialect(context), new H2Dialect(context), new MariaDbDialect(context));
    }

    @Test
    @DisplayName("every released migration is byte for byte what was released")
    void releasedMigrationsAreUnchanged() {
        RELEASED.forEach((file, sha256) -> assertThat(sha256(SqlFile.read(file)))
                .as("%s was released and must never change: put the change in a new V<n>__ file", file)
                .isEqualTo(sha256));
    }

    @Test
    @DisplayName("each dialect lists every migration file of its folder, numbered 1..n without gaps")
    void eachDialectListsItsMigrationsInOrder() throws IOException, URISyntaxException {
        for (Dialect dialect : dialects()) {
            List<String> listed = dialect.migrations();
            for (int i = 0; i < listed.size(); i++) {
                assertThat(Dialect.version(listed.get(i)))
                        .as("%s: version of %s", dialect, listed.get(i))
                        .isEqualTo(i + 1);
            }
            Path folder = Path.of(
                    SqlFile.class.getResource(dialect.folder() + "/migration").toURI());
            List<String> files = new ArrayList<>();
            try (Stream<Path> s = Files.list(folder)) {
                s.forEach(p -> files.add(dialect.folder() + "/migration/" + p.getFileName()));
            }
            assertThat(listed).as("%s: the migrations it runs", dialect).containsExactlyInAnyOrderElementsOf(files);
            assertThat(RELEASED.keySet())
                    .as("%s: version 1 is released", dialect)
                    .contains(listed.get(0));
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
