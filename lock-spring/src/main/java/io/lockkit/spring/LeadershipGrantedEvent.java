package io.lockkit.spring;

import io.lockkit.Term;
import java.io.Serial;
import org.springframework.context.ApplicationEvent;

/**
 * This instance was elected leader of a leadership declared in configuration
 * ({@code lockkit.leadership.<name>.*}). Published synchronously on the leadership's own thread,
 * before any {@link LeadershipRevokedEvent} of the same term; a listener that throws is logged and
 * does not end the term. Listen with {@code @EventListener} and check {@link #name()}.
 */
public final class LeadershipGrantedEvent extends ApplicationEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String name;
    private final transient Term term;

    /** The event of {@code term}, a term of the leadership {@code name}, published by {@code source}. */
    public LeadershipGrantedEvent(Object source, String name, Term term) {
        super(source);
        this.name = name;
        this.term = term;
    }

    /** The leadership's name. */
    public String name() {
        return name;
    }

    /** The term; {@link Term#lost()} completes when it ends. */
    public Term term() {
        return term;
    }

    /** The term's fencing token: the term number for the resources the leader writes to. */
    public long fencingToken() {
        return term.fencingToken();
    }

    @Override
    public String toString() {
        return "LeadershipGrantedEvent[" + name + ", term " + term.fencingToken() + "]";
    }
}
