package org.example.filelock;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSetting;
import io.lockkit.spi.ProviderSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Makes {@link FileLockProvider} selectable by configuration: {@code lockkit.provider=file} and
 * {@code lockkit.file.directory=/var/lib/myapp/locks}, or a {@code file:} URI in tools.
 */
public final class FileLockProviderFactory implements LockProviderFactory {

    static final String DIRECTORY = "lockkit.file.directory";
    static final String TIMEOUT = "lockkit.file.timeout";
    static final String SYNC = "lockkit.file.sync";

    @Override
    public String name() {
        return "file";
    }

    @Override
    public List<ProviderSetting> settings() {
        return List.of(
                new ProviderSetting(DIRECTORY, null, "The directory of the lock files (a path or a file: URI); required."),
                new ProviderSetting(TIMEOUT, "2s", "How long a call waits for another process's file lock."),
                new ProviderSetting(SYNC, "true", "Whether every new fencing token is forced to disk."));
    }

    @Override
    public Set<String> uriSchemes() {
        return Set.of("file");
    }

    @Override
    public Optional<String> uriKey() {
        return Optional.of(DIRECTORY);
    }

    @Override
    public LockProvider create(ProviderSettings settings, ProviderEnvironment environment) {
        String directory = settings.string(DIRECTORY)
                .orElseThrow(() -> new IllegalArgumentException(
                        DIRECTORY + " is not set in " + settings.origin() + "; the file provider needs a directory"));
        Duration timeout = settings.duration(TIMEOUT).orElse(Duration.ofSeconds(2));
        boolean sync = settings.bool(SYNC).orElse(true);
        Path path;
        try {
            path = directory.startsWith("file:") ? Path.of(URI.create(directory)) : Path.of(directory);
        } catch (RuntimeException e) {
            throw settings.invalid(DIRECTORY, directory, "not a path or a file: URI (" + e.getMessage() + ")");
        }
        try {
            return FileLockProvider.open(path, timeout, sync);
        } catch (IllegalArgumentException e) {
            throw settings.invalid(DIRECTORY, directory, e.getMessage());
        }
    }

    @Override
    public String describeTarget(ProviderSettings settings) {
        return settings.describe(DIRECTORY, "");
    }
}
