package org.example.filelock;

import io.lockkit.testkit.LockProviderFactoryContract;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

class FileLockProviderFactoryTest extends LockProviderFactoryContract {
    @TempDir static Path directory;
    @Override protected String providerName() { return "file"; }
    @Override protected Map<String, String> validSettings() { return Map.of("lockkit.file.directory", directory.toString()); }
    @Override protected Map<String, String> malformedSettings() {
        return Map.of("lockkit.file.timeout", "soon", "lockkit.file.sync", "maybe");
    }
}
