package io.lockkit.testkit;

import io.lockkit.spi.LockProvider;
import java.util.Optional;

/**
 * The backend a contract test runs against, as one object: a subclass of {@link LockContractTest}
 * hands it to the kit's constructor instead of overriding the kit's hooks one by one. A fixture or
 * a {@link ServerExtension} can build it, so that the subclass itself only names it.
 *
 * <pre>{@code
 * class MyProviderContractTest extends LockContractTest {
 *     MyProviderContractTest() {
 *         super(() -> new MyLockProvider(MyBackend.address()));
 *     }
 * }
 * }</pre>
 */
@FunctionalInterface
public interface ContractBackend {

    /** A new, independent client of the backend (see {@link LockContractTest#newProvider()}). */
    LockProvider newProvider();

    /** Stops and starts the backend for the outage tests (see {@link LockContractTest#backendControl()}); by default empty. */
    default Optional<BackendControl> backendControl() {
        return Optional.empty();
    }

    /**
     * Writes the hold count of {@code owner}, which holds {@code name} once, into the backend's
     * storage as {@code count} (see {@link LockContractTest#raiseHoldCount}), and returns true; by
     * default returns false, and the kit reaches the count by reentrant acquisitions.
     */
    default boolean writeHoldCount(String name, String owner, int count) {
        return false;
    }

    /**
     * Raises the backend's fencing-token counter so that the next token it hands out for {@code name},
     * which nobody holds, is at least {@code next} (see {@link LockContractTest#startTokensAt}), and
     * returns true; a backend with one counter for every name raises that one, and a counter already
     * past {@code next} stays where it is. By default returns false, and the kit skips its tests of
     * tokens past 2^31 and 2^53.
     */
    default boolean writeTokenCounter(String name, long next) {
        return false;
    }

    /**
     * A backend whose clients come from {@code newProvider} and whose outages {@code control} plays.
     *
     * @throws IllegalArgumentException when an argument is null
     */
    static ContractBackend of(java.util.function.Supplier<? extends LockProvider> newProvider, BackendControl control) {
        if (newProvider == null) {
            throw new IllegalArgumentException("newProvider must not be null");
        }
        if (control == null) {
            throw new IllegalArgumentException("control must not be null");
        }
        return new ContractBackend() {
            @Override
            public LockProvider newProvider() {
                return newProvider.get();
            }

            @Override
            public Optional<BackendControl> backendControl() {
                return Optional.of(control);
            }
        };
    }
}
