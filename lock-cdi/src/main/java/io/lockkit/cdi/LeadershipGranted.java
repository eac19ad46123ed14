package io.lockkit.cdi;

import io.lockkit.Term;

/**
 * CDI event: this instance was elected leader of a leadership declared in configuration. Fired
 * synchronously on the leadership's own thread, qualified by {@link LeaderOf @LeaderOf(name)},
 * before any {@link LeadershipRevoked} of the same term. An observer that throws is logged and
 * does not end the term (observers after it in the order are not notified, as for any CDI event).
 */
public final class LeadershipGranted {

    private final String name;
    private final Term term;

    /** The event of {@code term}, a term of the leadership {@code name}. */
    public LeadershipGranted(String name, Term term) {
        this.name = name;
        this.term = term;
    }

    /** The leadership's name. */
    public String name() {
        return name;
    }

    /**
     * The term: its {@linkplain Term#fencingToken() fencing token} is the term number for the
     * resources the leader writes to, and {@link Term#lost()} completes when it ends.
     */
    public Term term() {
        return term;
    }

    @Override
    public String toString() {
        return "LeadershipGranted[" + name + ", term " + term.fencingToken() + "]";
    }
}
