package io.lockkit.cdi.internal;

import jakarta.enterprise.inject.Instance;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Finds the container's Jakarta Concurrency {@code ManagedThreadFactory}: a bean of that type, else
 * the default one in JNDI. Compares type names only, so lock-cdi needs no Concurrency API.
 */
final class ManagedThreads {

    static final String MANAGED_THREAD_FACTORY = "jakarta.enterprise.concurrent.ManagedThreadFactory";
    static final String DEFAULT_JNDI_NAME = "java:comp/DefaultManagedThreadFactory";

    private static final System.Logger LOG = System.getLogger(ManagedThreads.class.getName());

    private ManagedThreads() {
    }

    /** The managed thread factory, or null when there is none (Java SE, Quarkus). */
    static ThreadFactory find(Instance<ThreadFactory> threadFactories) {
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
                throw new IllegalStateException("the container's ManagedThreadFactory made no thread (is the application stopping?)");
            }
            return thread;
        };
    }
}
