package io.lockkit.jedis.internal;

/**
 * The client part of an owner id ({@code <client id>:<owner>}), which the release script may prefer,
 * as a script argument. The last one is kept: a provider's owners nearly always share their
 * client's. Thread-safe (a racy cache of an immutable value).
 */
public final class ClientPrefix {

    /** No prefix: every hand-over is published. */
    public static final Arg NONE = Arg.of("");

    private volatile Arg last = NONE;

    /** The client part of {@code owner}, up to and with its first colon; {@link #NONE} without one. */
    public Arg of(String owner) {
        int end = owner.indexOf(':') + 1;
        Arg l = last;
        String text = l.toString();
        if (text.length() == end && owner.startsWith(text)) {
            return l;
        }
        Arg prefix = end == 0 ? NONE : Arg.of(owner.substring(0, end));
        last = prefix;
        return prefix;
    }
}
