package io.lockkit.testkit;

import io.lockkit.LocalLockProvider;
import io.lockkit.spi.LockProvider;

/** The in-JVM provider keeps the whole contract, outage included; the README shows this class. */
// kit-example:begin
class LocalLockProviderContractTest extends LockContractTest {

    private final LocalLockProvider backend = new LocalLockProvider();

    @Override
    protected LockProvider newProvider() {
        return backend.newClient();
    }

    @Override
    protected boolean canStopBackend() {
        return true;
    }

    @Override
    protected void stopBackend() {
        backend.stopBackend();
    }

    @Override
    protected void startBackend() {
        backend.startBackend();
    }
}
// kit-example:end
