package io.lockkit.it.app;

import jakarta.enterprise.context.ApplicationScoped;

/** The work of {@link CleanupJob}: records the run in the shared {@code ticks} log with its period and term. */
@ApplicationScoped
public class Cleaner {

    /** Records a run of the leader's timer in the current period, under the term {@code fencingToken}. */
    public void clean(long fencingToken) {
        SharedState.tick("leader", SharedState.period(System.currentTimeMillis()), "token=" + fencingToken);
    }
}
