package io.lockkit.examples.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.regex.Pattern;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The state the instances share, as files in one directory ({@code example.data-dir}): a reservation
 * count per SKU, and a journal per instance of what its report job did. A stand-in for a database
 * that makes a lost update visible. Thread-safe; an I/O failure is an {@link UncheckedIOException}.
 */
@Component
public class SharedFiles {

    private static final Pattern SKU = Pattern.compile("[A-Za-z0-9-]{1,40}");

    private final Path dir;

    public SharedFiles(@Value("${example.data-dir:${java.io.tmpdir}/lockkit-spring-example}") String dir) {
        this.dir = Paths.get(dir);
        try {
            Files.createDirectories(this.dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The reservations of {@code sku} recorded so far (0 before the first).
     *
     * @throws IllegalArgumentException when {@code sku} is not 1 to 40 letters, digits or dashes
     */
    public int reserved(String sku) {
        Path file = countFile(sku);
        try {
            return Files.exists(file) ? Integer.parseInt(Files.readString(file, StandardCharsets.UTF_8)) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Replaces the count of {@code sku} with {@code count}. The file is replaced whole (written aside,
     * then moved over it), so a reader sees the old count or the new one, never a torn one.
     */
    public void setReserved(String sku, int count) {
        Path file = countFile(sku);
        try {
            Path next = Files.createTempFile(dir, sku + "-", ".next");
            Files.writeString(next, Integer.toString(count), StandardCharsets.UTF_8);
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Appends {@code what instance millis value} to {@code instance}'s journal, one write per line, so
     * that a reader sees whole lines (and at most a partial last one).
     */
    public void journal(String instance, String what, long millis, long value) {
        String line = what + " " + instance + " " + millis + " " + value + "\n";
        try {
            Files.writeString(
                    dir.resolve("runs-" + instance + ".txt"),
                    line,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Returns {@code sku} when it can name a count file.
     *
     * @throws IllegalArgumentException when it is not 1 to 40 letters, digits or dashes
     */
    public static String checkedSku(String sku) {
        if (!SKU.matcher(sku).matches()) {
            throw new IllegalArgumentException("sku must be 1 to 40 letters, digits or dashes; was " + sku);
        }
        return sku;
    }

    private Path countFile(String sku) {
        return dir.resolve(checkedSku(sku) + ".count");
    }
}
