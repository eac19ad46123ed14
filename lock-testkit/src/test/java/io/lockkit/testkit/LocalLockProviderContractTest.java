package io.lockkit.testkit;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.LockProvider;
import java.util.Optional;

/** The in-JVM provider keeps the whole contract, outage included; the README shows this class. */
// kit-example:begin
class LocalLockProviderContractTest extends LockContractTest {

    private final LocalLockProvider backend = new LocalLockProvider();

    @Override
    protected LockProvider newProvider() {
        return backend.newClient();
    }

    @Override
    protected Optional<BackendControl> backendControl() {
        return Optional.of(BackendControl.of(backend::stopBackend, backend::startBackend));
    }
}
// kit-example:end
