package io.lockkit.cdi.internal.engine;

import org.jspecify.annotations.Nullable;

/**
 * A {@code @Locked} declaration that cannot work (bad template, wait, lease or return type). The
 * message says why without naming the method; {@link LockedMethod#message} adds that.
 */
public final class DeclarationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DeclarationException(@Nullable String message) {
        super(message);
    }
}
