package io.lockkit;

/**
 * A monotonic time source in nanoseconds, like {@link System#nanoTime()}; injectable so lease
 * arithmetic can be tested without sleeping.
 */
@FunctionalInterface
public interface Ticker {
    long nanoTime();

    static Ticker system() {
        return System::nanoTime;
    }
}
