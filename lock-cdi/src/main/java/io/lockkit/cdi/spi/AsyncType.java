package io.lockkit.cdi.spi;

import java.util.function.Supplier;

/**
 * An asynchronous return type a runtime follows for {@code @Locked} (Mutiny's {@code Uni} and
 * {@code Multi}, say), so that lock-cdi needs no dependency on its library. Deployment checks accept
 * methods declaring exactly {@link #typeName()}.
 */
public interface AsyncType {

    /** The fully qualified name of the declared return type, e.g. {@code io.smallrye.mutiny.Uni}. */
    String typeName();

    /**
     * A value of this type to return to the caller of the method instead of the method's own: each
     * time it is consumed (subscribed), it takes a new {@link LockedCall} from {@code calls},
     * {@linkplain LockedCall#acquire() acquires}, {@linkplain LockedCall#proceed() calls the method}
     * once granted, consumes the method's value, and {@linkplain LockedCall#release() releases} when
     * that value is done (completed, failed or cancelled), or when the consumer cancels while waiting.
     */
    Object defer(Supplier<LockedCall> calls);
}
