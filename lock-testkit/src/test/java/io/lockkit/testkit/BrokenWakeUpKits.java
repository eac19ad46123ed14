package io.lockkit.testkit;

import io.lockkit.LockException;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.LockRequest;
import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.ForwardingLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * Broken providers whose fault is in how a backend tells waiters when to try again: retry hints,
 * wake-ups, subscriptions (its wait queue: {@link BrokenQueueKits}). Each passed the whole kit before the kit test that
 * rejects it was written; {@link BrokenProvidersTest} names that test.
 */
final class BrokenWakeUpKits {

    private BrokenWakeUpKits() {}

    /** Busy answers say "retry now" (a zero retry hint): a waiter that no release wakes polls the backend. */
    static class ZeroRetryHintKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Acquisition tryAcquire(LockRequest r) {
                    Acquisition a = delegate().tryAcquire(r);
                    return a.isAcquired() ? a : Acquisition.busy(Duration.ZERO);
                }
            };
        }
    }

    /** Every release notification is passed on as "notifications may have been missed", which wakes every waiter of a client (a herd). */
    static class WakesEveryWaiterKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    return delegate().subscribe(name, new WakeUpListener() {
                        @Override
                        public void released(@Nullable String grantee) {
                            listener.missedNotifications();
                        }

                        @Override
                        public void missedNotifications() {
                            listener.missedNotifications();
                        }
                    });
                }
            };
        }
    }

    /** Closing a subscription does nothing: its listener keeps hearing of releases (and the backend keeps the channel). */
    static class SubscriptionOutlivesCloseKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    Subscription unused = delegate().subscribe(name, listener);
                    return () -> {
                        // the fault: the subscription made above is never closed
                    };
                }
            };
        }
    }

    /**
     * A kit whose table's wake-ups are dropped while {@link #silently} runs one of its calls: the
     * in-JVM table tells its listeners on the thread of the call that frees the name. {@link #quiet}
     * says which calls run so.
     */
    abstract static class SilencingKit extends BrokenProvidersTest.BrokenKit {
        private final ThreadLocal<Boolean> silent = ThreadLocal.withInitial(() -> false);

        /** The honest table with the calls whose wake-ups are dropped run through {@link #silently}. */
        abstract LockProvider quiet(LockProvider honest);

        final <T> T silently(java.util.function.Supplier<T> call) {
            silent.set(true);
            try {
                return call.get();
            } finally {
                silent.set(false);
            }
        }

        @Override
        final LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(quiet(honest)) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    return delegate().subscribe(name, new WakeUpListener() {
                        @Override
                        public void released(@Nullable String grantee) {
                            if (!silent.get()) {
                                listener.released(grantee);
                            }
                        }

                        @Override
                        public void missedNotifications() {
                            listener.missedNotifications();
                        }
                    });
                }
            };
        }
    }

    /**
     * A force release frees the lock without a wake-up (a DELETE that forgets the notification):
     * waiters of other clients find out at their retry hint.
     */
    static class ForceReleaseWakesNobodyKit extends SilencingKit {
        @Override
        LockProvider quiet(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public boolean forceRelease(String name) {
                    return silently(() -> delegate().forceRelease(name));
                }
            };
        }
    }

    /**
     * Subscribe returns before the subscription takes effect (a SUBSCRIBE sent without waiting for
     * its confirmation), with no "notifications may have been missed" after: a release in the first
     * 100 ms is lost. Everything else about the subscription (its close, a closed provider's
     * refusal) is as the honest provider's.
     */
    static class LateSubscriptionKit extends BrokenProvidersTest.BrokenKit {
        private static final long DEAF_NANOS = Duration.ofMillis(100).toNanos();

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    long subscribed = System.nanoTime();
                    return delegate().subscribe(name, new WakeUpListener() {
                        @Override
                        public void released(@Nullable String grantee) {
                            if (System.nanoTime() - subscribed >= DEAF_NANOS) {
                                listener.released(grantee);
                            }
                        }

                        @Override
                        public void missedNotifications() {
                            if (System.nanoTime() - subscribed >= DEAF_NANOS) {
                                listener.missedNotifications();
                            }
                        }
                    });
                }
            };
        }
    }

    /**
     * Pipelines its unsubscriptions, as a pub/sub connection that sends a command with the next one:
     * the last close of a name queues its UNSUBSCRIBE, and the reply to it, read when the next
     * subscribe goes out, forgets the name's listeners. A listener subscribed to the name right
     * after its last close is forgotten with them (and the backend no longer subscribed), so its
     * waiter hears of no release.
     */
    static class DropsListenersOnUnsubscribedKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                private final Map<String, List<WakeUpListener>> listeners = new ConcurrentHashMap<>();
                /** The backend subscriptions, one per name with listeners. */
                private final Map<String, Subscription> channels = new ConcurrentHashMap<>();
                /** Names whose unsubscription is queued, sent with the next subscribe. */
                private final Queue<String> unsubscribing = new ConcurrentLinkedQueue<>();

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    listeners
                            .computeIfAbsent(name, n -> new CopyOnWriteArrayList<>())
                            .add(listener);
                    channels.computeIfAbsent(
                            name,
                            n -> delegate().subscribe(n, new WakeUpListener() {
                                @Override
                                public void released(@Nullable String grantee) {
                                    listeners.getOrDefault(n, List.of()).forEach(l -> l.released(grantee));
                                }

                                @Override
                                public void missedNotifications() {
                                    listeners.getOrDefault(n, List.of()).forEach(WakeUpListener::missedNotifications);
                                }
                            }));
                    unsubscribed();
                    return () -> {
                        List<WakeUpListener> list = listeners.get(name);
                        if (list != null && list.remove(listener) && list.isEmpty()) {
                            unsubscribing.add(name);
                        }
                    };
                }

                /** The replies to the queued unsubscriptions. */
                private void unsubscribed() {
                    for (String name = unsubscribing.poll(); name != null; name = unsubscribing.poll()) {
                        Subscription channel = channels.remove(name);
                        if (channel != null) {
                            channel.close();
                        }
                        listeners.remove(name); // the fault: also whoever subscribed since the last close
                    }
                }

                @Override
                public void close() {
                    unsubscribed();
                    super.close();
                }
            };
        }
    }

    /**
     * Keeps each name's listeners in a list that the name's first subscription makes and its last
     * close removes, with {@code computeIfAbsent(...).add} and {@code computeIfPresent(...)} that
     * drops the list once empty (as a provider's watcher thread reads it): a subscription made
     * while the name's last one closes can add its listener to the list just dropped, and hears of
     * no release. Releases through any client of the kit are told to the listeners of every
     * client, as a backend's notifications would be.
     */
    static class RacyListenersKit extends BrokenProvidersTest.BrokenKit {
        /** The listeners of every client of the kit, by name: one map per client. */
        private final List<Map<String, List<WakeUpListener>>> clients = new CopyOnWriteArrayList<>();

        private void released(String name) {
            for (Map<String, List<WakeUpListener>> listeners : clients) {
                List<WakeUpListener> list = listeners.get(name);
                if (list != null) {
                    list.forEach(l -> l.released(null));
                }
            }
        }

        @Override
        LockProvider wrap(LockProvider honest) {
            Map<String, List<WakeUpListener>> listeners = new ConcurrentHashMap<>();
            clients.add(listeners);
            return new ForwardingLockProvider(honest) {
                private volatile boolean closed;

                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    if (r.outcome() == Release.Outcome.RELEASED) {
                        released(name);
                    }
                    return r;
                }

                @Override
                public boolean forceRelease(String name) {
                    boolean held = delegate().forceRelease(name);
                    released(name);
                    return held;
                }

                @Override
                public void close() {
                    closed = true;
                    super.close();
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    if (closed) {
                        throw new LockException(name, "the provider is closed");
                    }
                    listeners
                            .computeIfAbsent(name, n -> new CopyOnWriteArrayList<>())
                            .add(listener);
                    return () -> listeners.computeIfPresent(name, (n, list) -> {
                        list.remove(listener);
                        return list.isEmpty() ? null : list;
                    });
                }
            };
        }
    }

    /**
     * A subscription delivers one release notification and then no more (a one-shot future per
     * subscription, completed by the first message): a client's waiters that wait through several
     * releases by other clients hear only the first.
     */
    static class OneShotSubscriptionKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    java.util.concurrent.atomic.AtomicBoolean heard = new java.util.concurrent.atomic.AtomicBoolean();
                    return delegate().subscribe(name, new WakeUpListener() {
                        @Override
                        public void released(@Nullable String grantee) {
                            if (heard.compareAndSet(false, true)) {
                                listener.released(grantee);
                            }
                        }

                        @Override
                        public void missedNotifications() {
                            listener.missedNotifications();
                        }
                    });
                }
            };
        }
    }

    /**
     * A subscription hears the releases of every name that starts with its own (a pattern
     * subscription, {@code PSUBSCRIBE name*} or {@code LIKE name || '%'}): waiters of {@code order:1}
     * are woken by releases of {@code order:10} to {@code order:19}.
     */
    static class WakeUpsByPrefixKit extends BrokenProvidersTest.BrokenKit {
        /** Every subscription of every client, by the name it asked for. */
        private final Map<String, List<WakeUpListener>> subscribed = new ConcurrentHashMap<>();

        private void released(String name) {
            subscribed.forEach((subscribedTo, listeners) -> {
                if (!subscribedTo.equals(name) && name.startsWith(subscribedTo)) {
                    listeners.forEach(l -> l.released(null));
                }
            });
        }

        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Release release(String name, String owner) {
                    Release r = delegate().release(name, owner);
                    if (r.outcome() == Release.Outcome.RELEASED) {
                        released(name);
                    }
                    return r;
                }

                @Override
                public boolean forceRelease(String name) {
                    boolean held = delegate().forceRelease(name);
                    released(name);
                    return held;
                }

                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    Subscription s = delegate().subscribe(name, listener);
                    subscribed
                            .computeIfAbsent(name, n -> new CopyOnWriteArrayList<>())
                            .add(listener);
                    return () -> {
                        subscribed.computeIfPresent(name, (n, list) -> {
                            list.remove(listener);
                            return list.isEmpty() ? null : list;
                        });
                        s.close();
                    };
                }
            };
        }
    }

    /** Subscriptions that never deliver a wake-up: waiters learn of a release only at their retry hint. */
    static class WakesNobodyKit extends BrokenProvidersTest.BrokenKit {
        @Override
        LockProvider wrap(LockProvider honest) {
            return new ForwardingLockProvider(honest) {
                @Override
                public Subscription subscribe(String name, WakeUpListener listener) {
                    return () -> {};
                }
            };
        }
    }
}
