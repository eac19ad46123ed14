package io.lockkit.cdi.internal;

import io.lockkit.Leadership;
import io.lockkit.Term;
import java.time.Duration;
import java.util.Optional;

/**
 * What {@code @Inject @LeaderOf("name") Leadership} injects: a view of the leadership the
 * configuration declares under that name, which the library starts at application start and
 * closes at shutdown. Until it has started (and after it closed) this instance does not lead.
 */
// Design notes.
// - A view, not the Leadership itself: a bean may be created before the application start that
//   starts the declared leaderships (an @Initialized observer of its own), so each call asks the
//   holder for the leadership of the moment.
// - Made for injection points only (the extensions add a bean per name the deployment walk sees at
//   one), and only for a declared name: the walk's check of those names fails the deployment (in
//   Quarkus the start, before any bean ran) for a name the configuration does not declare.
// - close() is the container's: the view refuses it loudly rather than ignore it.
final class DeclaredLeadership implements Leadership {

    private final String name;
    private final LockFactoryHolder holder;

    DeclaredLeadership(String name, LockFactoryHolder holder) {
        this.name = name;
        this.holder = holder;
    }

    private Optional<Leadership> current() {
        return holder.leaderships().get(name);
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * The lease in force for the declared leadership: {@code lockkit.leadership.<name>.lease}, or the
     * factory's watchdog lease when that is not set.
     *
     * @throws IllegalStateException when the application has not started it yet, or it was closed
     */
    @Override
    public Duration lease() {
        return current().orElseThrow(this::notRunning).lease();
    }

    private IllegalStateException notRunning() {
        return new IllegalStateException(
                "lockkit: the leadership '" + name + "' is not running (the application is starting or stopping)");
    }

    /**
     * Campaigns again at once after a {@link #stepDown()}.
     *
     * @throws IllegalStateException when the application has not started it yet, or it was closed
     */
    @Override
    public Leadership start() {
        current().orElseThrow(this::notRunning).start();
        return this;
    }

    @Override
    public boolean isLeader() {
        return current().map(Leadership::isLeader).orElse(false);
    }

    @Override
    public Optional<Term> currentTerm() {
        return current().flatMap(Leadership::currentTerm);
    }

    /** As {@link Leadership#awaitTerm}; empty at once while the application has not started it, or after it closed. */
    @Override
    public Optional<Term> awaitTerm(Duration timeout) throws InterruptedException {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be null or negative: " + timeout);
        }
        Optional<Leadership> leadership = current();
        return leadership.isPresent() ? leadership.get().awaitTerm(timeout) : Optional.empty();
    }

    @Override
    public void stepDown() {
        current().ifPresent(Leadership::stepDown);
    }

    /**
     * Refused: the library closes a declared leadership when the application stops.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public void close() {
        throw new UnsupportedOperationException("lockkit: the leadership '" + name + "' is declared in configuration"
                + " and closed when the application stops; call stepDown() to let another instance lead");
    }

    @Override
    public String toString() {
        return "DeclaredLeadership[" + name + ", leader=" + isLeader() + "]";
    }
}
