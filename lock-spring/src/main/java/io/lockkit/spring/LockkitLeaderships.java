package io.lockkit.spring;

import io.lockkit.Leadership;
import java.util.Optional;

/**
 * The leaderships declared in configuration ({@code lockkit.leadership.<name>.*}), as a bean to
 * inject: ask one whether this instance leads now, or for its current term's fencing token, or
 * step it down. They start once the context has refreshed and step down when it closes; the
 * {@link LeadershipGrantedEvent} and {@link LeadershipRevokedEvent} tell of each change.
 * Thread-safe.
 */
public interface LockkitLeaderships {

    /**
     * The declared leadership {@code name}, once started; empty before the context has refreshed,
     * after it closed, or for a name not declared.
     */
    Optional<Leadership> get(String name);
}
