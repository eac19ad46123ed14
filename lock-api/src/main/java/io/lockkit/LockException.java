package io.lockkit;

import org.jspecify.annotations.Nullable;

/** The root of lockkit's exceptions; each names the lock it concerns. */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final @Nullable String lockName;

    public LockException(@Nullable String lockName, String message) {
        this(lockName, message, null);
    }

    public LockException(@Nullable String lockName, String message, @Nullable Throwable cause) {
        super(lockName == null ? message : message + " (lock '" + abbreviate(lockName) + "')", cause);
        this.lockName = lockName;
    }

    /** The lock's name, or {@code null} when the failure concerns no single lock. */
    public @Nullable String lockName() {
        return lockName;
    }

    static String abbreviate(String name) {
        return name.length() <= 200 ? name : name.substring(0, 200) + "…[" + name.length() + " chars]";
    }
}
