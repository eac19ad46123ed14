package io.lockkit.cdi;

import io.lockkit.Leadership;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The injected leadership of docs/leadership.md ("In Jakarta EE and Quarkus"), run by {@link InjectedLeadershipTest}. */
// leadership:injected-begin
@ApplicationScoped
public class NightlyReport {

    @Inject
    @LeaderOf("reports")
    Leadership reports;

    @Inject
    Reports store;

    /** Called by a timer on every instance (@Schedule, @Scheduled): only the leader writes. */
    public void run() {
        reports.currentTerm().ifPresent(term -> store.write(term.fencingToken()));
    }
}
// leadership:injected-end
