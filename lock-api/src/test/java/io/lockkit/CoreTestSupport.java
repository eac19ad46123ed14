package io.lockkit;

import java.time.Duration;
import java.util.Collection;

/** Helpers the core's unit tests share: waiting threads they start and can check for parking. */
final class CoreTestSupport {

    private CoreTestSupport() {}

    /** Starts {@code body} on a daemon thread named {@code name}, remembered in {@code threads} to join at the end. */
    static Thread startDaemon(Collection<Thread> threads, String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    /** Whether {@code t} is parked (waiting, with or without a timeout). */
    static boolean parked(Thread t) {
        Thread.State s = t.getState();
        return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
    }

    /** Try once; hold for exactly {@code d}, without the watchdog. */
    static LockOptions lease(Duration d) {
        return LockOptions.builder().noWait().lease(d).build();
    }
}
