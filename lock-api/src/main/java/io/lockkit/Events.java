package io.lockkit;

import io.lockkit.LockObserver.HoldKind;
import io.lockkit.LockObserver.LossCause;
import io.lockkit.LockObserver.Outcome;
import io.lockkit.spi.Claim;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import jdk.jfr.FlightRecorder;
import org.jspecify.annotations.Nullable;

/**
 * Reports what the factory does to its {@link LockObserver}s and as JFR events ({@link JfrEvents}),
 * one call per fact, so the lock code says what happened in one line and knows nothing of either.
 *
 * <p>Design: observers sit in an array that is empty when none is registered, so each report is a
 * length check plus, for JFR, a check that JFR was started and then an event that is dropped
 * while disabled; no report allocates. An observer's exception is caught here and logged once per observer and method (a
 * bit per method in a flag word): a broken metrics registry must not fill the log, nor ever fail
 * the lock call. JFR event classes are loaded only once JFR has been started in this JVM (and never
 * without the {@code jdk.jfr} module), so an application that never records pays nothing for them.
 */
final class Events {

    private static final System.Logger LOG = System.getLogger(Events.class.getName());
    /**
     * Whether lockkit's own class loader can see JFR: a jlink image may lack the module, and an
     * application server's modular class loader may not let a deployment see it even when the JVM
     * has it (WildFly: {@code NoClassDefFoundError: jdk/jfr/FlightRecorder} on every lock call until
     * this check). Without it neither FlightRecorder nor JfrEvents is ever touched.
     */
    private static final boolean JFR = jfrVisible();

    private static boolean jfrVisible() {
        try {
            Class.forName("jdk.jfr.FlightRecorder", false, Events.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "lockkit: JFR is not visible to lockkit's class loader; no JFR events",
                    e);
            return false;
        }
    }

    /**
     * Whether JFR events can be recorded: JFR is visible and has been started (a recording, now or
     * earlier). Until then JfrEvents is not loaded: loading an event class makes the JDK load its
     * event instrumentation, which added about 200 ms to the first lock call on JDK 17 and 25.
     */
    private boolean jfr() {
        return JFR && !jfrFailed && FlightRecorder.isInitialized();
    }

    /**
     * Set when recording an event failed: an application server may refuse to load a class of the
     * application once it began to undeploy it (Payara: "This web container has not yet been
     * started"), and a close must not stop at an event. Events are then no longer recorded by
     * this factory.
     */
    private volatile boolean jfrFailed;

    private void jfrFailed(Throwable t) {
        if (!jfrFailed) {
            jfrFailed = true;
            LOG.log(
                    System.Logger.Level.WARNING,
                    "lockkit: recording a JFR event failed; no more JFR events from this factory",
                    t);
        }
    }

    /** The observer methods, for logging a failure once per observer and method. */
    private enum Kind {
        ACQUIRED(1),
        NOT_ACQUIRED(2),
        RELEASED(4),
        LOST(8),
        RENEWAL_FAILED(16),
        BACKEND_UNAVAILABLE(32),
        WAITING_CHANGED(64),
        ELECTED(128),
        REVOKED(256);

        final int bit;

        Kind(int bit) {
            this.bit = bit;
        }
    }

    /** An observer with the methods whose failure has been logged. */
    private static final class Guarded {
        final LockObserver observer;
        final AtomicInteger logged = new AtomicInteger();

        Guarded(LockObserver observer) {
            this.observer = observer;
        }

        void failed(Kind kind, Throwable t) {
            if (t instanceof VirtualMachineError) {
                throw (VirtualMachineError) t;
            }
            int bit = kind.bit;
            if ((logged.getAndUpdate(b -> b | bit) & bit) == 0) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "lock observer " + observer + " failed in "
                                + kind.name().toLowerCase(java.util.Locale.ROOT)
                                + "; its further failures there are not logged",
                        t);
            }
        }
    }

    private final Ticker ticker;
    private final Guarded[] observers;
    /**
     * Threads of this factory waiting for a busy lock; counted only for observers. A change and its
     * report happen under {@link #waitingOrder}, so observers are told the counts in the order they
     * changed and the last count told is the current one.
     */
    private int waiting;

    private final ReentrantLock waitingOrder = new ReentrantLock();
    /** Losses of the last minute, for {@link LockOperations#health}; counted with or without observers. */
    final LossWindow losses = new LossWindow();

    Events(Ticker ticker, List<LockObserver> observers) {
        this.ticker = ticker;
        this.observers = new Guarded[observers.size()];
        for (int i = 0; i < this.observers.length; i++) {
            this.observers[i] = new Guarded(observers.get(i));
        }
        if (jfr()) {
            // Load the event classes now, while the application starts: at close an application
            // server may no longer load the application's classes.
            try {
                JfrEvents.load();
            } catch (RuntimeException | LinkageError e) {
                jfrFailed(e);
            }
        }
    }

    /** What a hold of {@code claim} is, for observers and events. */
    static HoldKind kindOf(Claim claim) {
        if (claim.exclusive()) {
            return claim.fair() ? HoldKind.FAIR : HoldKind.EXCLUSIVE;
        }
        return claim.capacity() == Claim.UNBOUNDED ? HoldKind.READ : HoldKind.PERMITS;
    }

    /** The lock was taken (or taken again, {@code reentrant}) for {@code claim} by a call that started at {@code startNanos}. */
    void acquired(String name, Claim claim, long startNanos, long token, boolean reentrant) {
        HoldKind kind = kindOf(claim);
        if (observers.length > 0) {
            long waited = ticker.nanoTime() - startNanos;
            for (Guarded g : observers) {
                try {
                    g.observer.acquired(name, kind, claim.weight(), waited, token, reentrant);
                } catch (Throwable t) {
                    g.failed(Kind.ACQUIRED, t);
                }
            }
        }
        if (jfr()) {
            try {
                JfrEvents.acquire(
                        name,
                        kind.name(),
                        claim.weight(),
                        ticker,
                        startNanos,
                        reentrant ? "REENTERED" : "ACQUIRED",
                        token);
            } catch (RuntimeException | LinkageError e) {
                jfrFailed(e);
            }
        }
    }

    /** A call for {@code claim} that started at {@code startNanos} ended without it. */
    void notAcquired(String name, Claim claim, long startNanos, Outcome outcome) {
        HoldKind kind = kindOf(claim);
        if (observers.length > 0) {
            long waited = ticker.nanoTime() - startNanos;
            for (Guarded g : observers) {
                try {
                    g.observer.notAcquired(name, kind, waited, outcome);
                } catch (Throwable t) {
                    g.failed(Kind.NOT_ACQUIRED, t);
                }
            }
        }
        if (jfr()) {
            try {
                JfrEvents.acquire(name, kind.name(), claim.weight(), ticker, startNanos, outcome.name(), 0);
            } catch (RuntimeException | LinkageError e) {
                jfrFailed(e);
            }
        }
    }

    /** Returns a new InterruptedException after reporting the interrupted wait, for {@code throw}. */
    InterruptedException interrupted(String name, Claim claim, long startNanos) {
        notAcquired(name, claim, startNanos, Outcome.INTERRUPTED);
        return new InterruptedException();
    }

    /** The owner's release ended {@code h}. */
    void released(Hold h) {
        if (observers.length > 0) {
            long held = ticker.nanoTime() - h.acquiredNanos;
            for (Guarded g : observers) {
                try {
                    g.observer.released(h.name, kindOf(h.claim), h.claim.weight(), h.token, held);
                } catch (Throwable t) {
                    g.failed(Kind.RELEASED, t);
                }
            }
        }
        if (jfr()) {
            try {
                JfrEvents.hold(h.name, kindOf(h.claim).name(), h.claim.weight(), ticker, h.acquiredNanos, h.token);
            } catch (RuntimeException | LinkageError e) {
                jfrFailed(e);
            }
        }
    }

    void lost(Hold h, LossCause cause, LockLostException loss) {
        if (cause != LossCause.FACTORY_CLOSED) {
            losses.record(ticker.nanoTime());
        }
        for (Guarded g : observers) {
            try {
                g.observer.lost(h.name, kindOf(h.claim), h.claim.weight(), h.token, cause, loss);
            } catch (Throwable t) {
                g.failed(Kind.LOST, t);
            }
        }
        if (jfr()) {
            try {
                JfrEvents.loss(
                        h.name, kindOf(h.claim).name(), h.claim.weight(), h.token, cause.name(), loss.getMessage());
            } catch (RuntimeException | LinkageError e) {
                jfrFailed(e);
            }
        }
    }

    /** A renewal of {@code holds} leases sent at {@code sentNanos} was answered. */
    void renewed(int holds, long sentNanos) {
        if (jfr()) {
            try {
                JfrEvents.renewal(holds, 1, ticker, sentNanos, false);
            } catch (RuntimeException | LinkageError e) {
                jfrFailed(e);
            }
        }
    }

    /** A renewal of {@code holds} leases sent at {@code sentNanos} failed with {@code failure}. */
    void renewalFailed(int holds, long sentNanos, RuntimeException failure) {
        for (Guarded g : observers) {
            try {
                g.observer.renewalFailed(holds, failure);
            } catch (Throwable t) {
                g.failed(Kind.RENEWAL_FAILED, t);
            }
        }
        failed(null, failure);
        if (jfr()) {
            try {
                JfrEvents.renewal(holds, 1, ticker, sentNanos, true);
            } catch (RuntimeException | LinkageError e) {
                jfrFailed(e);
            }
        }
    }

    /** A call to the backend about {@code name} (null: several locks) threw {@code failure}. */
    void failed(@Nullable String name, RuntimeException failure) {
        if (failure instanceof BackendUnavailableException) {
            for (Guarded g : observers) {
                try {
                    g.observer.backendUnavailable(name, (BackendUnavailableException) failure);
                } catch (Throwable t) {
                    g.failed(Kind.BACKEND_UNAVAILABLE, t);
                }
            }
        }
    }

    /** The calling thread found {@code name} busy and waits for it; returns true (for a flag). */
    boolean waitStarted(String name) {
        if (observers.length > 0) {
            waitingChanged(name, +1);
        }
        return true;
    }

    /** The calling thread, which had {@linkplain #waitStarted started} waiting, stopped. */
    void waitEnded(String name) {
        if (observers.length > 0) {
            waitingChanged(name, -1);
        }
    }

    /** A leadership of {@code name} won the term {@code term}. */
    void elected(String name, long term) {
        for (Guarded g : observers) {
            try {
                g.observer.elected(name, term);
            } catch (Throwable t) {
                g.failed(Kind.ELECTED, t);
            }
        }
        if (jfr()) {
            try {
                JfrEvents.leadership(name, term, "ELECTED", null, 0);
            } catch (RuntimeException | LinkageError e) {
                jfrFailed(e);
            }
        }
    }

    /** A leadership of {@code name} lost the term {@code term} for {@code reason} after {@code ledNanos}. */
    void revoked(String name, long term, Leadership.RevocationReason reason, long ledNanos) {
        for (Guarded g : observers) {
            try {
                g.observer.revoked(name, term, reason, ledNanos);
            } catch (Throwable t) {
                g.failed(Kind.REVOKED, t);
            }
        }
        if (jfr()) {
            try {
                JfrEvents.leadership(name, term, "REVOKED", reason.name(), ledNanos);
            } catch (RuntimeException | LinkageError e) {
                jfrFailed(e);
            }
        }
    }

    private void waitingChanged(String name, int change) {
        waitingOrder.lock();
        try {
            int now = waiting += change;
            for (Guarded g : observers) {
                try {
                    g.observer.waitingChanged(name, now);
                } catch (Throwable t) {
                    g.failed(Kind.WAITING_CHANGED, t);
                }
            }
        } finally {
            waitingOrder.unlock();
        }
    }
}
