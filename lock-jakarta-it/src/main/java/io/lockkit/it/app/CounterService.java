package io.lockkit.it.app;

import io.lockkit.cdi.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** A read-pause-write counter shared by all instances: with the lock it counts every call, without it loses updates. */
@ApplicationScoped
public class CounterService {

    static final long PAUSE_MILLIS = 20;

    /** Increments {@code id}'s counter under the lock {@code counter:{id}}; returns the value written. */
    @Locked(value = "counter:{id}", waitTime = 120)
    public int incrementLocked(String id) {
        return increment(id);
    }

    /** The negative control: the same read-pause-write with no lock at all. */
    public int incrementUnlocked(String id) {
        return increment(id);
    }

    private static int increment(String id) {
        SharedState.enter("counter-" + id);
        try {
            int read = SharedState.read(id);
            SharedState.pause(PAUSE_MILLIS);
            SharedState.write(id, read + 1);
            return read + 1;
        } finally {
            SharedState.exit("counter-" + id);
        }
    }
}
