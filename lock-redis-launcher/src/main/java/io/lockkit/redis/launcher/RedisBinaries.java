package io.lockkit.redis.launcher;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import redis.embedded.core.ExecutableProvider;
import redis.embedded.model.OsArchitecture;

/**
 * Finds {@code redis-server} executables: on a search path, or bundled in the embedded-redis jar.
 *
 * <p>The embedded-redis jar carries one binary per platform as a class-path resource at its root
 * (e.g. {@code /redis-server-6.2.6-v5-linux-amd64}); the library's own
 * {@link ExecutableProvider#newProvidedVersionsMap()} names them, so a new library version with
 * renamed binaries keeps working. The binary is copied once per JVM to a temporary file marked
 * executable and deleted when the JVM exits; the launcher then launches it itself, like any other
 * binary, so every source is stopped, logged and restarted the same way. Thread-safe.
 */
final class RedisBinaries {

    private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)");
    private static final Map<Path, int[]> VERSIONS = new ConcurrentHashMap<>();
    private static final Object EXTRACTION_LOCK = new Object();
    private static volatile @Nullable Path extracted;

    private RedisBinaries() {}

    /** The first executable {@code redis-server} in the directories of {@code searchPath}, if any. */
    static Optional<Path> onPath(String searchPath) {
        boolean windows = isWindows();
        for (String dir : searchPath.split(Pattern.quote(File.pathSeparator), -1)) {
            // An empty entry means "the current directory" to a shell; the launcher should not guess that.
            if (dir.isBlank()) {
                continue;
            }
            Path candidate;
            try {
                candidate = Path.of(dir, windows ? "redis-server.exe" : "redis-server");
            } catch (RuntimeException e) {
                continue;
            }
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate.toAbsolutePath());
            }
        }
        return Optional.empty();
    }

    /**
     * The class-path resource holding the embedded binary for this platform, or null when the jar
     * has none for it (or is not on the class path).
     */
    static @Nullable String embeddedResource() {
        try {
            OsArchitecture platform = platform();
            return platform == null
                    ? null
                    : ExecutableProvider.newProvidedVersionsMap().get(platform);
        } catch (LinkageError e) {
            return null;
        }
    }

    /**
     * The embedded binary, copied to a temporary executable file on first use.
     *
     * @return empty when there is no binary for this platform
     * @throws UncheckedIOException when copying the binary fails
     */
    static Optional<Path> embedded() {
        Path path = extracted;
        if (path != null) {
            return Optional.of(path);
        }
        String resource = embeddedResource();
        if (resource == null) {
            return Optional.empty();
        }
        URL url = ExecutableProvider.class.getResource(resource);
        if (url == null) {
            return Optional.empty();
        }
        synchronized (EXTRACTION_LOCK) {
            if (extracted == null) {
                extracted = extract(url, resource);
            }
            return Optional.of(extracted);
        }
    }

    private static Path extract(URL url, String resource) {
        String fileName = resource.substring(resource.lastIndexOf('/') + 1);
        try {
            Path dir = Files.createTempDirectory("lockkit-redis-bin-");
            Path target = dir.resolve(fileName);
            // deleteOnExit runs in reverse order of registration: the file goes first, then its directory.
            dir.toFile().deleteOnExit();
            target.toFile().deleteOnExit();
            try (InputStream in = url.openStream()) {
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            }
            if (!target.toFile().setExecutable(true, true)) {
                throw new IOException("cannot mark " + target + " executable");
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot copy the embedded Redis binary " + resource + " to a temporary file", e);
        }
    }

    /**
     * The major and minor version reported by {@code binary --version}, or {@code {-1, -1}} when it
     * cannot be read. Cached per binary.
     */
    static int[] version(Path binary) {
        return VERSIONS.computeIfAbsent(binary, RedisBinaries::probeVersion).clone();
    }

    private static int[] probeVersion(Path binary) {
        try {
            Process process = new ProcessBuilder(binary.toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            process.getOutputStream().close();
            String output;
            try (InputStream in = process.getInputStream()) {
                output = new String(in.readNBytes(4096), StandardCharsets.UTF_8);
            }
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            Matcher m = VERSION.matcher(output);
            if (m.find()) {
                return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
            }
        } catch (IOException e) {
            // Fall through: unknown version.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new int[] {-1, -1};
    }

    private static @Nullable OsArchitecture platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        boolean x86 = arch.equals("x86") || arch.matches("i[3-6]86");
        if (os.contains("win")) {
            return x64 ? OsArchitecture.WINDOWS_x86_64 : x86 ? OsArchitecture.WINDOWS_x86 : null;
        }
        if (os.contains("mac") || os.contains("darwin")) {
            return x64 ? OsArchitecture.MAC_OS_X_x86_64 : arm64 ? OsArchitecture.MAC_OS_X_ARM64 : null;
        }
        if (os.contains("linux")) {
            return x64
                    ? OsArchitecture.UNIX_x86_64
                    : arm64 ? OsArchitecture.UNIX_AARCH64 : x86 ? OsArchitecture.UNIX_x86 : null;
        }
        return null;
    }

    static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");
    }

    /**
     * The binary {@code source} provides ({@link RedisLauncher.Source#PATH} searched on {@code searchPath},
     * {@link RedisLauncher.Source#EMBEDDED}), or empty, with the reason added to {@code unavailable}.
     */
    static Optional<Path> of(RedisLauncher.Source source, String searchPath, List<String> unavailable) {
        if (source == RedisLauncher.Source.PATH) {
            Optional<Path> binary = onPath(searchPath);
            if (binary.isEmpty()) {
                unavailable.add("PATH: no redis-server on the search path");
            }
            return binary;
        }
        if (source == RedisLauncher.Source.EMBEDDED) {
            Optional<Path> binary = embedded();
            if (binary.isEmpty()) {
                unavailable.add("EMBEDDED: embedded-redis has no binary for " + System.getProperty("os.name") + "/"
                        + System.getProperty("os.arch") + " (or com.github.codemonstur:embedded-redis is missing)");
            }
            return binary;
        }
        return Optional.empty();
    }

    /** The failure of a launcher whose {@code sources} provided no binary, with why each did not. */
    static IllegalStateException none(List<RedisLauncher.Source> sources, List<String> unavailable) {
        return new IllegalStateException("no redis-server binary available from sources " + sources
                + (unavailable.isEmpty()
                        ? " (only PATH and EMBEDDED provide binaries)"
                        : ":\n  " + String.join("\n  ", unavailable)));
    }
}
