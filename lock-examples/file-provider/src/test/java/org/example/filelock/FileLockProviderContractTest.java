package org.example.filelock;

import io.lockkit.spi.LockProvider;
import io.lockkit.testkit.LockContractTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class FileLockProviderContractTest extends LockContractTest {
    @TempDir static Path directory;
    @Override protected LockProvider newProvider() { return FileLockProvider.open(directory); }
}
