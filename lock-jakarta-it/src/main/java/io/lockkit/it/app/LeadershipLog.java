package io.lockkit.it.app;

import io.lockkit.cdi.LeaderOf;
import io.lockkit.cdi.LeadershipGranted;
import io.lockkit.cdi.LeadershipRevoked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Records every term of the {@code cleanup} leadership this instance begins and ends in the shared
 * {@code terms} log: {@code <instance> granted|revoked <token> <wall-clock millis> [reason]}.
 */
@ApplicationScoped
public class LeadershipLog {

    void granted(@Observes @LeaderOf("cleanup") LeadershipGranted granted) {
        SharedState.term("granted", granted.term().fencingToken(), "");
    }

    void revoked(@Observes @LeaderOf("cleanup") LeadershipRevoked revoked) {
        SharedState.term(
                "revoked", revoked.term().fencingToken(), revoked.reason().name());
    }
}
