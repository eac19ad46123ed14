package io.lockkit.spring;

import io.lockkit.Leadership.RevocationReason;
import io.lockkit.Term;
import java.io.Serial;
import org.springframework.context.ApplicationEvent;

/**
 * This instance stopped leading a leadership declared in configuration. Published synchronously on
 * the leadership's own thread after the term's {@link LeadershipGrantedEvent}; it completes before
 * the term's lease ends on this instance's clock, so before another instance can be elected (see
 * {@link io.lockkit.Leadership}). When the context closes it is published with
 * {@link RevocationReason#CLOSED} before {@code @Locked} methods are drained. A listener that throws
 * is logged.
 */
public final class LeadershipRevokedEvent extends ApplicationEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String name;
    private final transient Term term;
    private final RevocationReason reason;

    /** The end of {@code term}, a term of the leadership {@code name}, for {@code reason}, published by {@code source}. */
    public LeadershipRevokedEvent(Object source, String name, Term term, RevocationReason reason) {
        super(source);
        this.name = name;
        this.term = term;
        this.reason = reason;
    }

    /** The leadership's name. */
    public String name() {
        return name;
    }

    /** The term that ended. */
    public Term term() {
        return term;
    }

    /** The ended term's fencing token. */
    public long fencingToken() {
        return term.fencingToken();
    }

    /** Why it ended. */
    public RevocationReason reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "LeadershipRevokedEvent[" + name + ", term " + term.fencingToken() + ", " + reason + "]";
    }
}
