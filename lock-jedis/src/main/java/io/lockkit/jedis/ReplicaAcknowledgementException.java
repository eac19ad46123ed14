package io.lockkit.jedis;

import io.lockkit.LockException;
import java.time.Duration;

/** Too few replicas acknowledged an acquisition in time; it was undone. */
public class ReplicaAcknowledgementException extends LockException {
    private static final long serialVersionUID = 1L;

    private final int required;
    private final long acknowledged;

    public ReplicaAcknowledgementException(String lockName, int required, long acknowledged, Duration timeout) {
        super(
                lockName,
                "only " + acknowledged + " of " + required + " replicas acknowledged the acquisition within " + timeout
                        + "; it was undone");
        this.required = required;
        this.acknowledged = acknowledged;
    }

    public int required() {
        return required;
    }

    public long acknowledged() {
        return acknowledged;
    }
}
