package io.lockkit.cdi;

import io.lockkit.Term;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jspecify.annotations.Nullable;

/** The leader-only job of docs/leadership.md ("In Jakarta EE and Quarkus"), run by {@link ReportSchedulerTest}. */
// leadership:observers-begin
@ApplicationScoped
public class ReportScheduler {

    @Inject
    Reports reports;

    private volatile @Nullable Term term; // the term this instance leads in, if any

    void onLead(@Observes @LeaderOf("reports") LeadershipGranted granted) {
        term = granted.term();
    }

    void onStepDown(@Observes @LeaderOf("reports") LeadershipRevoked revoked) {
        term = null; // returns before any other instance can be elected
    }

    /** Called by a timer on every instance (@Schedule, @Scheduled): only the leader writes. */
    public void nightly() {
        Term current = term;
        if (current != null && current.isValid()) {
            reports.write(current.fencingToken()); // the store refuses terms older than its newest
        }
    }
}
// leadership:observers-end
