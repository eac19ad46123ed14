package io.lockkit;

import io.lockkit.spi.Acquisition;
import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.Capability;
import io.lockkit.spi.LockProvider.LockRequest;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * The provider as the core calls it to acquire: its capabilities, and one attempt with what every
 * attempt's failure or answer means to the rest of the core. Releases, renewals and inspection
 * call the {@link #provider()} directly. Thread-safe (as the provider is).
 */
final class ProviderCalls {

    private final LockProvider provider;
    private final Set<Capability> capabilities;
    private final Gate gate;
    private final Events events;
    private final Unsettled unsettled;
    private final Abandons abandons;

    ProviderCalls(LockProvider provider, Gate gate, Events events, Unsettled unsettled, Abandons abandons) {
        this.provider = provider;
        Set<Capability> caps = provider.capabilities();
        this.capabilities = caps.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(caps);
        this.gate = gate;
        this.events = events;
        this.unsettled = unsettled;
        this.abandons = abandons;
    }

    LockProvider provider() {
        return provider;
    }

    boolean has(Capability capability) {
        return capabilities.contains(capability);
    }

    /**
     * @throws UnsupportedOperationException naming {@code what}, when the provider lacks {@code capability}
     */
    void require(Capability capability, String what) {
        if (!has(capability)) {
            throw new UnsupportedOperationException(what + " is not supported by " + provider);
        }
    }

    /**
     * One attempt. A failure leaves the owner unsettled (the backend may have taken it) and is
     * reported; an answer tells {@link Abandons} that the backend answers again.
     *
     * @throws LockException when the factory closed meanwhile, or the provider answered null
     */
    Acquisition attempt(String name, String owner, Duration lease, Duration wait, long waitId, Claim claim) {
        Acquisition a;
        try {
            a = provider.tryAcquire(new LockRequest(name, owner, lease, wait, waitId, claim));
        } catch (RuntimeException e) {
            unsettled.unsettle(name, owner);
            if (gate.isClosed()) {
                throw new LockException(name, "the lock factory was closed while acquiring", e);
            }
            events.failed(name, e);
            throw e;
        }
        if (a == null) {
            throw new LockException(name, provider + " answered null to tryAcquire");
        }
        abandons.backendAnswered();
        return a;
    }

    /**
     * Attempts that do not wait, at several names in one provider call ({@link
     * LockProvider#tryAcquireAll}), with {@link #attempt}'s handling of a failure (every owner
     * unsettled) and of an answer.
     *
     * @return the answers, in request order
     * @throws LockException when the factory closed meanwhile, or the provider answered amiss
     */
    java.util.List<Acquisition> attemptAll(java.util.List<LockRequest> requests) {
        String first = requests.get(0).name();
        java.util.List<Acquisition> answers;
        try {
            answers = provider.tryAcquireAll(requests);
        } catch (RuntimeException e) {
            for (LockRequest r : requests) {
                unsettled.unsettle(r.name(), r.owner());
            }
            if (gate.isClosed()) {
                throw new LockException(first, "the lock factory was closed while acquiring", e);
            }
            events.failed(first, e);
            throw e;
        }
        if (answers == null
                || answers.size() != requests.size()
                || answers.stream().anyMatch(a -> a == null)) {
            throw new LockException(first, provider + " answered " + answers + " to tryAcquireAll");
        }
        abandons.backendAnswered();
        return answers;
    }

    @Override
    public String toString() {
        return provider.toString();
    }
}
