package io.lockkit.cdi;

import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays Open Liberty's ManagedThreadFactory (concurrent-3.0): a thread it makes sets its context up
 * at the start of {@code run()}, which waits until the application has finished starting; here,
 * until the test opens {@link #started}.
 */
@ApplicationScoped
public class GatedContainerThreads {

    static volatile CountDownLatch started = new CountDownLatch(1);
    static final List<Thread> MADE = new CopyOnWriteArrayList<>();
    /** For each thread made, the name of the thread that asked for it (whose context it would capture). */
    static final List<String> ASKED_BY = new CopyOnWriteArrayList<>();

    /** A new gate, closed, and no threads recorded. */
    static void reset() {
        started.countDown();
        started = new CountDownLatch(1);
        MADE.clear();
        ASKED_BY.clear();
    }

    @Produces
    @ApplicationScoped
    ManagedThreadFactory managedThreadFactory() {
        AtomicInteger next = new AtomicInteger();
        CountDownLatch gate = started;
        return new ManagedThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(
                        () -> {
                            try {
                                gate.await();
                            } catch (InterruptedException e) {
                                return;
                            }
                            r.run();
                        },
                        "gated-" + next.incrementAndGet());
                MADE.add(t);
                ASKED_BY.add(Thread.currentThread().getName());
                return t;
            }

            @Override
            public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
                throw new UnsupportedOperationException();
            }
        };
    }
}
