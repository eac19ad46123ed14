package io.lockkit.cdi;

import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;

/** Plays a Jakarta EE server's ManagedThreadFactory bean, recording the threads it makes. */
@ApplicationScoped
public class ContainerThreads {

    static final List<Thread> MADE = new CopyOnWriteArrayList<>();
    /** For each thread made, the name of the thread that asked for it (whose context it would capture). */
    static final List<String> ASKED_BY = new CopyOnWriteArrayList<>();

    @Produces
    @ApplicationScoped
    ManagedThreadFactory managedThreadFactory() {
        AtomicInteger next = new AtomicInteger();
        return new ManagedThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, "managed-" + next.incrementAndGet());
                t.setDaemon(true);
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
