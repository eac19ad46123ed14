package io.lockkit.testkit;

/**
 * Stops and starts the backend under test, for the kit's outage tests (see
 * {@link LockContractTest#backendControl()}). Each method returns once the backend is in the state
 * it names, and throws (any unchecked exception) when it cannot get there.
 */
public interface BackendControl {

    /** Makes the backend unreachable for every client, as an outage would. */
    void stop();

    /** Brings the stopped backend back; the holds it had may or may not have survived. */
    void start();

    /** Brings the stopped backend back without any of the holds it had, as a restart that lost its data would. */
    void startForgettingHolds();

    /**
     * A control for a backend that keeps no hold across a stop (in memory, or without persistence):
     * both starts run {@code start}.
     *
     * @throws IllegalArgumentException when an argument is null
     */
    static BackendControl of(Runnable stop, Runnable start) {
        return of(stop, start, () -> {});
    }

    /**
     * A control whose {@link #startForgettingHolds()} runs {@code start} and then
     * {@code forgetHolds} (for a backend that keeps its data, e.g. one that deletes every hold).
     *
     * @throws IllegalArgumentException when an argument is null
     */
    static BackendControl of(Runnable stop, Runnable start, Runnable forgetHolds) {
        checkNotNull(stop, "stop");
        checkNotNull(start, "start");
        checkNotNull(forgetHolds, "forgetHolds");
        return new BackendControl() {
            @Override
            public void stop() {
                stop.run();
            }

            @Override
            public void start() {
                start.run();
            }

            @Override
            public void startForgettingHolds() {
                start.run();
                forgetHolds.run();
            }
        };
    }

    private static void checkNotNull(Object argument, String name) {
        if (argument == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
    }
}
