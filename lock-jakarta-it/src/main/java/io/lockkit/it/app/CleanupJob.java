package io.lockkit.it.app;

import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;

/**
 * The leader-only EJB timer of docs/recipes.md: every instance's timer fires, only the instance that
 * leads {@code cleanup} (declared with {@code lockkit.leadership.cleanup.lease}) does the work.
 */
// recipes:leader-schedule-begin
@Singleton
public class CleanupJob {

    @Inject
    @LeaderOf("cleanup")
    Leadership cleanup;

    @Inject
    Cleaner cleaner;

    /** Fires every 2 s on every instance; only the leader's run cleans, with its term's token. */
    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false, info = "cleanup")
    public void run() {
        cleanup.currentTerm().ifPresent(term -> cleaner.clean(term.fencingToken()));
    }
}
// recipes:leader-schedule-end
