package io.lockkit.benchmarks;

import io.lockkit.DistributedLock;
import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

/**
 * The states P8 measures, as each library reaches them: a thread takes something and hands back
 * how to give it back. Each library plays two processes: a holder client and a waiter client.
 */
final class MemoryPeers {

    private MemoryPeers() {}

    /** Takes something for the calling thread; the result gives it back (on the same thread). */
    interface Acquire {
        Runnable acquire() throws InterruptedException;
    }

    /** One library, as two clients. */
    interface Peer extends AutoCloseable {
        String name();

        /** A lock of the holder's ({@code waiter}: of the waiter's client); {@code fair}: the fair kind. */
        Acquire lock(boolean waiter, String name, boolean fair);

        Acquire read(String name);

        Acquire permit(String name, int capacity);

        @Override
        void close();
    }

    static Acquire of(Lock lock) {
        return () -> {
            lock.lockInterruptibly();
            return lock::unlock;
        };
    }

    static final class Lockkit implements Peer {
        private final DistributedLockFactory holder;
        private final DistributedLockFactory waiter;

        Lockkit(String uri) {
            holder = DistributedLockFactory.create(LockkitClient.provider(uri, "p8-lockkit-holder"));
            waiter = DistributedLockFactory.create(LockkitClient.provider(uri, "p8-lockkit-waiter"));
        }

        DistributedLockFactory holder() {
            return holder;
        }

        @Override
        public String name() {
            return "lockkit";
        }

        @Override
        public Acquire lock(boolean waiting, String name, boolean fair) {
            DistributedLockFactory f = waiting ? waiter : holder;
            DistributedLock lock = fair ? f.getFairLock(name) : f.getLock(name);
            return of(lock);
        }

        @Override
        public Acquire read(String name) {
            return of(holder.getReadWriteLock(name).readLock());
        }

        @Override
        public Acquire permit(String name, int capacity) {
            return () -> {
                LockHandle h = holder.getSemaphore(name, capacity).acquire();
                return h::release;
            };
        }

        @Override
        public void close() {
            waiter.close();
            holder.close();
        }
    }

    static final class Redisson implements Peer {
        private final RedissonClient holder;
        private final RedissonClient waiter;
        private final RedissonBenchClient holderClient;
        private final RedissonBenchClient waiterClient;

        Redisson(String uri) {
            holderClient = new RedissonBenchClient(uri, "p8-redisson-holder");
            waiterClient = new RedissonBenchClient(uri, "p8-redisson-waiter");
            holder = holderClient.redisson();
            waiter = waiterClient.redisson();
        }

        RedissonClient holder() {
            return holder;
        }

        @Override
        public String name() {
            return "Redisson 4.7.0";
        }

        @Override
        public Acquire lock(boolean waiting, String name, boolean fair) {
            RedissonClient r = waiting ? waiter : holder;
            return of(fair ? r.getFairLock(name) : r.getLock(name));
        }

        @Override
        public Acquire read(String name) {
            return of(holder.getReadWriteLock(name).readLock());
        }

        @Override
        public Acquire permit(String name, int capacity) {
            RPermitExpirableSemaphore s = holder.getPermitExpirableSemaphore(name);
            s.trySetPermits(capacity);
            return () -> {
                String id = s.acquire();
                return () -> s.release(id);
            };
        }

        @Override
        public void close() {
            waiterClient.close();
            holderClient.close();
        }
    }

    /**
     * Threads that each run an {@link Acquire} and keep what it took until {@link #stop()}; a
     * waiting one is interrupted by {@code stop()}.
     */
    static final class Parked {
        private final List<Thread> threads = new ArrayList<>();
        private final CountDownLatch stop = new CountDownLatch(1);
        private final CountDownLatch acquired;
        private final List<Parked> after = new ArrayList<>();

        private Parked(int n, Acquire acquire) {
            acquired = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                Thread t = new Thread(
                        () -> {
                            try {
                                Runnable release = acquire.acquire();
                                acquired.countDown();
                                stop.await();
                                release.run();
                            } catch (InterruptedException e) {
                                // a waiter told to leave
                            }
                        },
                        "p8-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }

        /** {@code n} threads that each hold what {@code acquire} takes, once all hold it. */
        static Parked holding(int n, Acquire acquire) throws InterruptedException {
            Parked p = new Parked(n, acquire);
            if (!p.acquired.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the holders did not all acquire within 60 s");
            }
            return p;
        }

        /** {@code n} threads that wait for what {@code acquire} takes, once all are parked. */
        static Parked waiting(int n, Acquire acquire) throws InterruptedException {
            Parked p = new Parked(n, acquire);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!p.threads.stream()
                    .allMatch(
                            t -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING)) {
                if (System.nanoTime() > end) {
                    throw new IllegalStateException("the waiters did not all park within 60 s");
                }
                Thread.sleep(50);
            }
            return p;
        }

        /** Stops {@code next} after this one. */
        Parked then(Parked next) {
            after.add(next);
            return this;
        }

        void stop() throws InterruptedException {
            stop.countDown();
            for (Thread t : threads) {
                if (acquired.getCount() > 0) {
                    t.interrupt();
                }
            }
            for (Thread t : threads) {
                t.join(30_000);
            }
            for (Parked p : after) {
                p.stop();
            }
        }
    }
}
