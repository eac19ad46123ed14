package io.lockkit.examples.quarkus;

import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.LeadershipGranted;
import io.lockkit.cdi.LeadershipRevoked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A bean of {@link DeclaredLeadershipTest}: the events and the injected view of a declared leadership, in ArC. */
@ApplicationScoped
public class LeaderOnlyReports {

    @Inject
    @LeaderOf("reports")
    Leadership reports;

    private final List<String> events = new CopyOnWriteArrayList<>();

    void onLead(@Observes @LeaderOf("reports") LeadershipGranted granted) {
        events.add("granted " + granted.term().fencingToken());
    }

    void onStepDown(@Observes @LeaderOf("reports") LeadershipRevoked revoked) {
        events.add("revoked " + revoked.term().fencingToken() + " " + revoked.reason());
    }

    public Leadership leadership() {
        return reports;
    }

    public List<String> events() {
        return List.copyOf(events);
    }
}
