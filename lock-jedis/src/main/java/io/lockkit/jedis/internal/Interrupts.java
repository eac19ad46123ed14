package io.lockkit.jedis.internal;

import java.nio.channels.ClosedByInterruptException;
import java.util.function.Supplier;

/**
 * Keeps a caller's interrupt away from Jedis. An interrupt is the lock caller's business (the core
 * ends an interruptible wait, {@code lock()} keeps waiting), never a failure of Redis; but Jedis
 * gives up on an interrupted thread where it waits for a pooled connection (commons-pool2 waits
 * interruptibly when the pool is at its limit), and reports that as a failure. So the status is
 * set aside for the call and set again after it; a call that failed because an interrupt arrived
 * while it ran is made again, a few times (what failed was taking a connection, before anything
 * was sent; and every lockkit command may be repeated, see the provider's retry).
 */
public final class Interrupts {

    private static final int ATTEMPTS = 4;

    private Interrupts() {}

    /** Runs {@code call} with the interrupt status cleared, and sets it again afterwards if it was set or came meanwhile. */
    public static <T> T setAside(Supplier<T> call) {
        boolean interrupted = Thread.interrupted();
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    return call.get();
                } catch (RuntimeException e) {
                    boolean cleared = Thread.interrupted(); // always, so a retry runs with the flag set aside
                    boolean byInterrupt = cleared || causedByInterrupt(e);
                    interrupted |= byInterrupt;
                    if (!byInterrupt || attempt >= ATTEMPTS) {
                        throw e;
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static boolean causedByInterrupt(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof InterruptedException || t instanceof ClosedByInterruptException) {
                return true;
            }
        }
        return false;
    }
}
