package io.lockkit.testkit;

import io.lockkit.DistributedLockFactory;
import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The kit's own calls into a provider, a factory or the kit's hooks that no test timeout covers
 * (closing what a test made, reading the capabilities before a test), bounded: each runs on a daemon
 * thread, and one that has not returned in time fails the test with an {@link AssertionError} that
 * names the call and the provider method its thread waits in, with that thread's stack as the cause.
 * A stuck thread is interrupted and left behind: a daemon, it keeps no JVM from ending. Thread-safe.
 */
final class BoundedCalls {

    /**
     * How long the kit waits for one of its own calls, before the kit's time scale. Generous: closing
     * a client releases its holds one round trip each, over a backend that may just have restarted
     * on a loaded machine; a call that returns at all returns well within it.
     */
    static final Duration BOUND = Duration.ofSeconds(30);

    private static final AtomicInteger THREADS = new AtomicInteger();

    private BoundedCalls() {}

    /**
     * Runs {@code call} on a thread of its own and returns its result, or throws what it threw. The
     * caller's interrupt status is left as it was: the kit's tests make calls with it set on purpose.
     *
     * @throws AssertionError when it has not returned within {@code bound}, naming {@code what}
     */
    static <T> T within(Duration bound, String what, Callable<T> call) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = start(() -> {
            try {
                result.complete(call.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return awaitKeepingInterrupts(result, bound);
        } catch (TimeoutException e) {
            AssertionError failure = stuck(what, bound, t); // before the interrupt moves the thread on
            t.interrupt();
            throw failure;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    private static <T> T awaitKeepingInterrupts(CompletableFuture<T> result, Duration bound)
            throws ExecutionException, TimeoutException {
        long end = System.nanoTime() + bound.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return result.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Runs every call at once, each on a thread of its own, and waits at most {@code bound} for them
     * all; what a call throws is ignored (a client the test closed itself, a backend it stopped).
     *
     * @return one failure per call that had not returned, in the order given
     */
    static List<AssertionError> allWithin(Duration bound, List<Call> calls) throws InterruptedException {
        List<Thread> running = new ArrayList<>();
        for (Call call : calls) {
            running.add(start(() -> {
                try {
                    call.body().run();
                } catch (RuntimeException e) {
                    // what the test left behind failing to close is not what this bounds
                }
            }));
        }
        long end = System.nanoTime() + bound.toNanos();
        List<AssertionError> stuck = new ArrayList<>();
        for (int i = 0; i < running.size(); i++) {
            Thread t = running.get(i);
            TimeUnit.NANOSECONDS.timedJoin(t, Math.max(1, end - System.nanoTime()));
            if (t.isAlive()) {
                stuck.add(stuck(calls.get(i).what(), bound, t));
                t.interrupt();
            }
        }
        return stuck;
    }

    /** A call of {@link #allWithin}: what it is, for a failure, and its body. */
    record Call(String what, Runnable body) {}

    /** The failure for the call {@code what}, which had not returned on {@code thread} after {@code bound}. */
    static AssertionError stuck(String what, Duration bound, Thread thread) {
        StackTraceElement[] stack = thread.getStackTrace();
        String in = waitsIn(stack);
        AssertionError e = new AssertionError(what + " did not return within " + seconds(bound)
                + (in == null ? "" : "; it waits in " + in)
                + " (the stack of its thread, " + thread.getName() + ", is the cause)");
        e.initCause(new StuckThread(thread.getName(), stack));
        return e;
    }

    /**
     * Waits at most {@code bound} for every thread; one still alive then inside a provider call is
     * stuck there (the clients and providers of the test are closed by then: a call of a closed
     * provider fails at once).
     *
     * @return one failure per such thread
     */
    static List<AssertionError> unfinished(List<Thread> threads, Duration bound) throws InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        List<AssertionError> stuck = new ArrayList<>();
        for (Thread t : threads) {
            TimeUnit.NANOSECONDS.timedJoin(t, Math.max(1, end - System.nanoTime()));
            if (t.isAlive() && providerFrame(t.getStackTrace()) != null) {
                stuck.add(stuck("a provider call on the test's thread " + t.getName(), bound, t));
                t.interrupt();
            }
        }
        return stuck;
    }

    /** The call a stuck thread waits in: its outermost provider method, else its outermost {@code newProvider()}. */
    static @Nullable String waitsIn(StackTraceElement[] stack) {
        String provider = providerFrame(stack);
        if (provider != null) {
            return provider;
        }
        for (int i = stack.length - 1; i >= 0; i--) {
            if (stack[i].getMethodName().equals("newProvider")) {
                return stack[i].getClassName() + ".newProvider()";
            }
        }
        return null;
    }

    /** The outermost method on {@code stack} of a class that implements {@link LockProvider}, as {@code LockProvider.release (its class)}. */
    static @Nullable String providerFrame(StackTraceElement[] stack) {
        for (int i = stack.length - 1; i >= 0; i--) {
            StackTraceElement frame = stack[i];
            Class<?> type = load(frame.getClassName());
            if (type != null && LockProvider.class.isAssignableFrom(type)) {
                return "LockProvider." + frame.getMethodName() + " (" + frame.getClassName() + ")";
            }
        }
        return null;
    }

    private static @Nullable Class<?> load(String className) {
        try {
            return Class.forName(className, false, BoundedCalls.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null; // a class of another loader: not the provider the kit was given
        }
    }

    private static Thread start(Runnable body) {
        Thread t = new Thread(body, "kit-bounded-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String seconds(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0
                ? millis / 1000 + " s"
                : String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
    }

    /** Where a thread that did not return was: its stack, as a cause of the failure. */
    static final class StuckThread extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StuckThread(String threadName, StackTraceElement[] stack) {
            super("thread " + threadName + " was here when the kit gave up on it", null, false, true);
            setStackTrace(stack);
        }
    }

    /**
     * What {@link LockContractTest} does after each test: interrupts {@code threads}, closes
     * {@code clients} (all at once), then {@code providers}, each within {@code bound}, waits up to
     * {@code threadBound} for the threads, and empties the three lists.
     *
     * @throws AssertionError naming the first close or thread stuck in a provider call, with the others suppressed
     */
    static void closeAfterTest(
            List<DistributedLockFactory> clients,
            List<LockProvider> providers,
            List<Thread> threads,
            Duration bound,
            Duration threadBound)
            throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
        }
        List<AssertionError> stuck = new ArrayList<>();
        List<Call> closes = new ArrayList<>();
        for (DistributedLockFactory c : clients) {
            closes.add(new Call("closing the client " + c + " after the test", c::close));
        }
        stuck.addAll(allWithin(bound, closes));
        closes.clear();
        for (LockProvider p : providers) {
            closes.add(new Call("closing the provider " + p + " after the test", p::close));
        }
        stuck.addAll(allWithin(bound, closes));
        stuck.addAll(unfinished(threads, threadBound));
        clients.clear();
        providers.clear();
        threads.clear();
        if (!stuck.isEmpty()) {
            AssertionError first = stuck.get(0);
            stuck.subList(1, stuck.size()).forEach(first::addSuppressed);
            throw first;
        }
    }
}
