package io.lockkit.cdi.internal;

import jakarta.enterprise.inject.Instance;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Finds the container's Jakarta Concurrency {@code ManagedThreadFactory}: a bean of that type, else
 * the default one in JNDI. Compares type names only, so lock-cdi needs no Concurrency API.
 */
final class ManagedThreads {

    static final String MANAGED_THREAD_FACTORY = "jakarta.enterprise.concurrent.ManagedThreadFactory";
    static final String DEFAULT_JNDI_NAME = "java:comp/DefaultManagedThreadFactory";

    private static final System.Logger LOG = System.getLogger(ManagedThreads.class.getName());

    private ManagedThreads() {}

    /** The managed thread factory, or null when there is none (Java SE, Quarkus). */
    @SuppressWarnings("BanJNDI") // looks up a fixed or configured name the application chose, never request input
    static @Nullable ThreadFactory find(Instance<ThreadFactory> threadFactories) {
        for (Instance.Handle<ThreadFactory> handle : threadFactories.handles()) {
            boolean managed = handle.getBean().getTypes().stream()
                    .anyMatch(t -> t instanceof Class<?> c && c.getName().equals(MANAGED_THREAD_FACTORY));
            if (managed) {
                return handle.get();
            }
        }
        if (!present()) {
            return null;
        }
        try {
            Object found = new javax.naming.InitialContext().lookup(DEFAULT_JNDI_NAME);
            return found instanceof ThreadFactory tf ? tf : null;
        } catch (javax.naming.NamingException | RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.DEBUG, "no " + DEFAULT_JNDI_NAME + "; using the library's own threads", e);
            return null;
        }
    }

    private static boolean present() {
        try {
            Class.forName(MANAGED_THREAD_FACTORY, false, ManagedThreads.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Threads of {@code container} that carry a {@code prefix-N} name while they run lockkit's work
     * and get their own name back afterwards (a managed thread factory names its threads itself).
     */
    static ThreadFactory named(ThreadFactory container, String prefix) {
        AtomicInteger sequence = new AtomicInteger();
        return work -> {
            String name = prefix + "-" + sequence.incrementAndGet();
            Thread thread = container.newThread(() -> {
                Thread self = Thread.currentThread();
                String own = self.getName();
                self.setName(name);
                try {
                    work.run();
                } finally {
                    self.setName(own);
                }
            });
            if (thread == null) {
                throw new IllegalStateException(
                        "the container's ManagedThreadFactory made no thread (is the application stopping?)");
            }
            return thread;
        };
    }

    /**
     * A thread factory that makes every thread of {@code container} either on the thread that
     * starts the application (while it starts) or on one thread of its own, made now: WildFly and
     * GlassFish/Payara give a managed thread the context of whoever calls {@code newThread}, and a
     * thread lockkit makes later (the Redis wake-up thread starts at the first wait) would otherwise
     * keep the security identity of the request that happened to need it. Call it on the thread that
     * starts the application, and {@link ContextFreeThreads#started()} once the start is over; close
     * it with the factory.
     */
    static ContextFreeThreads contextFree(ThreadFactory container) {
        return new ContextFreeThreads(container);
    }

    /** See {@link #contextFree(ThreadFactory)}. */
    // Design notes.
    // - Nothing waits for a managed thread to run while the application starts. Open Liberty (with
    //   concurrent-3.0) sets a managed thread's context up at the start of run(), and that waits for
    //   the application's initialization to finish: a start that waited for the maker to answer
    //   (as this class once did for every thread) waited for itself, 10 s, then failed. While the
    //   application starts, the starting thread asks the container itself (the application's own
    //   context, no request's), and only threads asked for later go through the maker, which by then
    //   runs everywhere.
    // - The maker is made at start too, on the starting thread, so it carries no request's context;
    //   it only blocks in its queue, and it is a daemon thread.
    static final class ContextFreeThreads implements ThreadFactory, AutoCloseable {
        /** How long a thread asked for after the start waits for the maker to make it. */
        static final long MAKER_TIMEOUT_SECONDS = 10;

        private final ThreadFactory container;
        private final SynchronousQueue<FutureTask<Thread>> requests = new SynchronousQueue<>();
        private final Thread maker;
        private volatile @Nullable Thread starter;
        private volatile boolean closed;
        /** Whether the maker runs: a container may hold it back until the application has started. */
        private volatile boolean serving;

        private ContextFreeThreads(ThreadFactory container) {
            this.container = container;
            this.starter = Thread.currentThread();
            this.maker = container.newThread(this::serve);
            if (maker == null) {
                throw new IllegalStateException(
                        "the container's ManagedThreadFactory made no thread (is the application stopping?)");
            }
            maker.setDaemon(true);
            maker.start();
        }

        /** The application has started: from now on every thread is made by the maker. */
        void started() {
            starter = null;
        }

        private void serve() {
            Thread self = Thread.currentThread();
            String own = self.getName();
            self.setName("lockkit-thread-maker");
            serving = true;
            try {
                while (!closed) {
                    FutureTask<Thread> request = requests.poll(1, TimeUnit.SECONDS);
                    if (request != null) {
                        request.run();
                    }
                }
            } catch (InterruptedException e) {
                // closed
            } finally {
                self.setName(own);
            }
        }

        @Override
        public Thread newThread(Runnable work) {
            Thread caller = Thread.currentThread();
            if (caller == maker || caller == starter || closed) {
                return container.newThread(work);
            }
            FutureTask<Thread> request = new FutureTask<>(() -> container.newThread(work));
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        if (!requests.offer(request, MAKER_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                            throw new IllegalStateException(
                                    "lockkit's thread maker did not answer within " + MAKER_TIMEOUT_SECONDS + " s");
                        }
                        return request.get();
                    } catch (InterruptedException e) {
                        interrupted = true; // a thread is needed all the same; keep the flag
                    } catch (ExecutionException e) {
                        throw new IllegalStateException("the container's ManagedThreadFactory failed", e.getCause());
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void close() {
            closed = true;
            starter = null;
            maker.interrupt();
            if (!serving) {
                return; // held back by the container (a start that failed): it ends as soon as it runs
            }
            try {
                maker.join(TimeUnit.SECONDS.toMillis(2)); // gone with the application, not after it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
