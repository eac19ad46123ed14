package io.lockkit.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.lockkit.DistributedLock;
import io.lockkit.spi.LockProvider.Capability;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * "Declared capabilities" ({@link LockContractTest.Capabilities}): a capability the provider
 * declares absent is refused loudly.
 */
abstract class CapabilitiesContract extends ContractGroup {

    CapabilitiesContract(LockContractTest kit) {
        super(kit);
    }

    @Test
    @DisplayName("without fencing tokens, asking for one is refused loudly")
    void absentFencingIsRefused() throws Exception {
        assumeFalse(has(Capability.FENCING_TOKENS), "the provider has fencing tokens");
        DistributedLock lock = client().getLock(name());
        lock.lock();
        assertThatThrownBy(lock::fencingToken).isInstanceOf(UnsupportedOperationException.class);
        lock.unlock();
    }

    @Test
    @DisplayName("without force release, forceUnlock is refused loudly")
    void absentForceReleaseIsRefused() {
        assumeFalse(has(Capability.FORCE_RELEASE), "the provider can force-release");
        assertThatThrownBy(() -> client().getLock(name()).forceUnlock())
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    @DisplayName("without explicit leases, a lease is refused loudly")
    void absentExplicitLeaseIsRefused() {
        assumeFalse(has(Capability.EXPLICIT_LEASE), "the provider takes explicit leases");
        assertThatThrownBy(() -> client().getLock(name()).lock(Duration.ofSeconds(5)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    @DisplayName("without inspection, isLocked is refused loudly")
    void absentInspectionIsRefused() {
        assumeFalse(has(Capability.INSPECTION), "the provider can inspect locks");
        assertThatThrownBy(() -> client().getLock(name()).isLocked()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> client().operations().inspect(name()))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    @DisplayName("without listing, locks(prefix) is refused loudly")
    void absentListingIsRefused() {
        assumeFalse(has(Capability.LISTING), "the provider can list locks");
        assertThatThrownBy(() -> client().operations().locks("")).isInstanceOf(UnsupportedOperationException.class);
    }
}
