package io.lockkit.testkit;

import io.lockkit.LocalLockProvider;
import org.junit.jupiter.api.Tag;

/** The in-JVM provider keeps the whole contract, outage included; the kit's guide shows this class. */
@Tag("second-pass") // CI runs it in one of its two passes only: see .ci/run
// kit-example:begin
class LocalLockProviderContractTest extends LockContractTest {
    static final LocalLockProvider BACKEND = new LocalLockProvider();

    LocalLockProviderContractTest() {
        super(ContractBackend.of(BACKEND::newClient, BackendControl.of(BACKEND::stopBackend, BACKEND::startBackend)));
    }

    @Override
    protected boolean startTokensAt(String name, long next) {
        BACKEND.startTokensAt(next); // one counter for every name
        return true;
    }
}
// kit-example:end
