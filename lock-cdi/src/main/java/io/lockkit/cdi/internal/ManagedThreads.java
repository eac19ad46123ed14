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
     * Threads of {@code container} named {@code prefix-N} and made daemon threads as soon as they
     * are made, like lockkit's own threads elsewhere, and given their container name back when
     * lockkit's work ends (a managed thread factory names its threads itself).
     */
    // Named at once, not when the thread first runs: Open Liberty runs no managed thread of an
    // application before its start is over, and until then its threads were named
    // "managedThreadFactory[DefaultManagedThreadFactory]-thread-N", which leak checks by name miss.
    // Named again when the work starts, in case the container names a thread as it runs it.
    static ThreadFactory named(ThreadFactory container, String prefix) {
        AtomicInteger sequence = new AtomicInteger();
        return work -> {
            NamedWork named = new NamedWork(work, prefix + "-" + sequence.incrementAndGet());
            Thread thread = container.newThread(named);
            if (thread == null) {
                throw new IllegalStateException(
                        "the container's ManagedThreadFactory made no thread (is the application stopping?)");
            }
            named.containerName = adopt(thread, named.name);
            return thread;
        };
    }

    /**
     * Names a thread the container just made (not started) {@code name} and makes it a daemon
     * thread where the container lets it (Jakarta Concurrency leaves both to the thread's maker;
     * Open Liberty's are not daemon threads by default); returns the container's name for it.
     */
    static String adopt(Thread thread, String name) {
        String containerName = thread.getName();
        try {
            thread.setName(name);
            if (!thread.isDaemon()) {
                thread.setDaemon(true);
            }
        } catch (IllegalThreadStateException | SecurityException e) {
            // started already, or refused: it keeps what the container gave it
            LOG.log(System.Logger.Level.DEBUG, "lockkit: cannot rename or make a daemon of " + thread, e);
        }
        return containerName;
    }

    /** lockkit's work on a container thread: under lockkit's name while it runs, the container's after. */
    private static final class NamedWork implements Runnable {
        private final Runnable work;
        final String name;
        /** Set before the thread starts (Thread.start happens-before run). */
        volatile String containerName;

        NamedWork(Runnable work, String name) {
            this.work = work;
            this.name = name;
            this.containerName = name;
        }

        @Override
        public void run() {
            Thread self = Thread.currentThread();
            self.setName(name);
            try {
                work.run();
            } finally {
                self.setName(containerName);
            }
        }
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

        private static final String MAKER_NAME = "lockkit-thread-maker";

        private final ThreadFactory container;
        private final SynchronousQueue<FutureTask<Thread>> requests = new SynchronousQueue<>();
        private final Thread maker;
        private final String makerContainerName;
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
            this.makerContainerName = adopt(maker, MAKER_NAME);
            maker.start();
        }

        /** The application has started: from now on every thread is made by the maker. */
        void started() {
            starter = null;
        }

        private void serve() {
            Thread self = Thread.currentThread();
            self.setName(MAKER_NAME); // again, in case the container named it as it ran it
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
                self.setName(makerContainerName);
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
                // Held back by the container (a start that failed, or a close right after the start):
                // it ends as soon as it runs, and may never run lockkit's code, whose end gives the
                // container's name back; give it back here (should it run, it does so again).
                maker.setName(makerContainerName);
                return;
            }
            try {
                maker.join(TimeUnit.SECONDS.toMillis(2)); // gone with the application, not after it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
