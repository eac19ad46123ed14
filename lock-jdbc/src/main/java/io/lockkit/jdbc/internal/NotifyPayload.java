package io.lockkit.jdbc.internal;

import org.jspecify.annotations.Nullable;

/**
 * The payload of a release notification (PostgreSQL {@code pg_notify}), built by the lock table's
 * functions and read by the LISTEN thread: {@code <key>} when the lock is free (one waiter per
 * process looks), {@code <key>:<grantee>} when it was handed to a waiting owner (only that owner's
 * process wakes it), followed by {@code " <origin>"} when a release of provider {@code origin} made
 * the hand-over (that provider woke its grantee itself and skips it). Keys are hex and owner ids
 * contain no spaces, so the separators are unambiguous. {@code SqlContractTest} holds the functions'
 * {@code pg_notify} calls to these forms. Stateless.
 */
public final class NotifyPayload {

    /** Between the key and the grantee. */
    public static final String GRANTEE = ":";

    /** Between the grantee and the origin. */
    public static final String ORIGIN = " ";

    private NotifyPayload() {}

    /** A decoded payload: the lock's key, the owner it was handed to (null: free) and the provider that did it (null: unsaid). */
    public record Notice(
            String key, @Nullable String grantee, @Nullable String origin) {}

    /** The payload for a lock that is free. */
    public static String free(String key) {
        return key;
    }

    /** The payload for a lock handed to {@code grantee}, by a release of provider {@code origin} (null: not a release). */
    public static String handedOver(String key, String grantee, @Nullable String origin) {
        return key + GRANTEE + grantee + (origin == null ? "" : ORIGIN + origin);
    }

    /** Reads a payload of any of the three forms. */
    public static Notice decode(String payload) {
        int colon = payload.indexOf(GRANTEE);
        if (colon < 0) {
            return new Notice(payload, null, null);
        }
        int space = payload.indexOf(ORIGIN, colon);
        String grantee = payload.substring(colon + 1, space < 0 ? payload.length() : space);
        return new Notice(payload.substring(0, colon), grantee, space < 0 ? null : payload.substring(space + 1));
    }
}
