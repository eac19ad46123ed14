package io.lockkit.cdi;

import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * A {@code @Locked @Transactional} method under Narayana, with a backend that records when the lock
 * is taken and released, each time with the transaction status at that moment.
 */
@ApplicationScoped
public class Ledger {

    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    /** Narayana's transaction manager, the one its @Transactional interceptors use in Java SE. */
    private static final TransactionManager TRANSACTIONS = com.arjuna.ats.jta.TransactionManager.transactionManager();

    @Locked("ledger:{account}")
    @Transactional
    public void post(String account) throws Exception {
        recordRunAndCompletion();
    }

    @Locked("ledger:{account}")
    @Transactional
    public void failingPost(String account) {
        EVENTS.add("method fails");
        throw new IllegalStateException("insufficient funds");
    }

    @Inject
    Inner inner;

    /** A transactional method that calls a @Locked one: the lock is taken inside the transaction. */
    @Transactional
    public void postInside(String account) throws Exception {
        inner.post(account);
    }

    @Transactional
    public void failingPostInside(String account) {
        inner.failingPost(account);
    }

    @Transactional
    public void postTwiceInside(String account) throws Exception {
        inner.post(account);
        inner.post(account);
    }

    /** The @Locked part, without a transaction of its own. */
    @ApplicationScoped
    public static class Inner {
        @Locked("ledger:{account}")
        public void post(String account) throws Exception {
            recordRunAndCompletion();
        }

        @Locked("ledger:{account}")
        public void failingPost(String account) {
            EVENTS.add("method fails");
            try {
                TRANSACTIONS.getTransaction().registerSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {}

                    @Override
                    public void afterCompletion(int status) {
                        EVENTS.add("transaction " + status(status));
                    }
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            throw new IllegalStateException("insufficient funds");
        }
    }

    /** Records that the method runs, and when its transaction completes and how. */
    static void recordRunAndCompletion() throws Exception {
        EVENTS.add("method runs, transaction " + status(TRANSACTIONS.getStatus()));
        TRANSACTIONS.getTransaction().registerSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                EVENTS.add("transaction completing");
            }

            @Override
            public void afterCompletion(int status) {
                EVENTS.add("transaction " + status(status));
            }
        });
    }

    static String status(int status) {
        return switch (status) {
            case Status.STATUS_ACTIVE -> "active";
            case Status.STATUS_NO_TRANSACTION -> "none";
            case Status.STATUS_COMMITTED -> "committed";
            case Status.STATUS_ROLLEDBACK -> "rolled back";
            default -> "status " + status;
        };
    }

    /** The backend: Redis, recording each acquisition and release with the transaction status then. */
    @ApplicationScoped
    public static class RecordingBackend {

        @Produces
        @Singleton
        LockProvider provider() {
            JedisLockProvider redis =
                    JedisLockProvider.create(ConfigProvider.getConfig().getValue("lockkit.redis.uri", String.class));
            return new ForwardingLockProvider(redis) {
                @Override
                public Acquisition tryAcquire(LockRequest request) {
                    Acquisition a = super.tryAcquire(request);
                    if (a.isAcquired()) {
                        EVENTS.add("lock taken, transaction " + status());
                    }
                    return a;
                }

                @Override
                public Release release(String name, String owner) {
                    Release r = super.release(name, owner);
                    EVENTS.add("lock released, transaction " + status());
                    return r;
                }
            };
        }

        private String status() {
            try {
                return Ledger.status(TRANSACTIONS.getStatus());
            } catch (SystemException e) {
                return e.toString();
            }
        }
    }
}
