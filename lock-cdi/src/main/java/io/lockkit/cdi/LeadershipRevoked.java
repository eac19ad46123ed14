package io.lockkit.cdi;

import io.lockkit.Leadership.RevocationReason;
import io.lockkit.Term;

/**
 * CDI event: this instance stopped leading a leadership declared in configuration. Fired
 * synchronously on the leadership's own thread, qualified by {@link LeaderOf @LeaderOf(name)},
 * after the term's {@link LeadershipGranted}; it completes before the term's lease ends on this
 * instance's clock, so before any other instance can be elected (see {@link io.lockkit.Leadership}
 * for the guarantee and its assumptions). At undeploy or shutdown it is fired with
 * {@link RevocationReason#CLOSED} before {@code @Locked} methods are drained. An observer that
 * throws is logged.
 */
public final class LeadershipRevoked {

    private final String name;
    private final Term term;
    private final RevocationReason reason;

    /** The event of the end of {@code term}, a term of the leadership {@code name}, for {@code reason}. */
    public LeadershipRevoked(String name, Term term, RevocationReason reason) {
        this.name = name;
        this.term = term;
        this.reason = reason;
    }

    /** The leadership's name. */
    public String name() {
        return name;
    }

    /** The term that ended ({@link Term#lost()} has completed). */
    public Term term() {
        return term;
    }

    /** Why it ended. */
    public RevocationReason reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "LeadershipRevoked[" + name + ", term " + term.fencingToken() + ", " + reason + "]";
    }
}
