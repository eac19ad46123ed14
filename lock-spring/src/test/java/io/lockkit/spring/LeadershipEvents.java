package io.lockkit.spring;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.context.event.EventListener;

/** Records the leadership events the application receives. */
public class LeadershipEvents {

    final List<Object> events = new CopyOnWriteArrayList<>();

    @EventListener
    public void granted(LeadershipGrantedEvent event) {
        events.add(event);
    }

    @EventListener
    public void revoked(LeadershipRevokedEvent event) {
        events.add(event);
    }
}
