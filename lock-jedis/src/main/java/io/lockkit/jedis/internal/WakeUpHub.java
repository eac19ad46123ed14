package io.lockkit.jedis.internal;

import io.lockkit.LockException;
import io.lockkit.spi.LockProvider.Subscription;
import io.lockkit.spi.LockProvider.WakeUpListener;
import io.lockkit.spi.support.OutageTracker;
import io.lockkit.spi.support.WakeUpListeners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * One pub/sub connection and one thread per provider, shared by every waiting thread.
 *
 * <p>Design: the thread runs Jedis' blocking subscribe loop, started on first use with a control
 * channel so that it stays up between waits. Lock channels are added and dropped on the live
 * connection (reference-counted per channel); {@link #subscribe} returns once Redis confirmed the
 * channel, so a release published after it returns is delivered (or, after its timeout or an
 * interrupt, tells the listener to look again once it is: an interrupt is the waiter's business,
 * not a failure of Redis). When the connection breaks, the
 * thread reconnects, subscribes to every channel again, and tells their listeners that
 * notifications may have been missed, so their waiters check the lock once more. The first
 * reconnect is immediate; Jedis takes the subscription connection from the command pool, so an
 * attempt that meets a dead idle connection (the command connections were killed too) drops the
 * pool's idle connections and tries again at once; only failures on fresh connections back off.
 * The outage itself (warning, back-off, alerting waiters, the line when it is over) is an
 * {@link OutageTracker}, as for sharded wake-ups.
 */
public final class WakeUpHub implements WakeUps {

    private static final System.Logger LOG = System.getLogger(WakeUpHub.class.getName());
    private static final String SUBJECT = "the wake-up connection to Redis";

    private final UnifiedJedis jedis;
    private final String controlChannel;
    private final ThreadFactory threadFactory;
    private final Duration timeout;
    private final ReentrantLock lock = new ReentrantLock();
    private final WakeUpListeners listeners = new WakeUpListeners();
    private final Map<String, CompletableFuture<Void>> confirmations = new ConcurrentHashMap<>();
    /**
     * Per channel, the SUBSCRIBEs sent on this connection whose confirmation has not come, oldest
     * first (under {@link #lock}): Redis confirms each in order, so a confirmation completes the
     * oldest. A channel unsubscribed and subscribed again before the first confirmation came must
     * not take that confirmation for its own: between the two, Redis unsubscribed the channel, and a
     * release published then would be lost to a waiter told it was subscribed.
     */
    private final Map<String, java.util.ArrayDeque<CompletableFuture<Void>>> pending = new java.util.HashMap<>();
    /** Channels requested on the current connection; guarded by {@link #lock}. */
    private final Set<String> requested = new HashSet<>();

    private final Set<String> toResync = ConcurrentHashMap.newKeySet();
    private final PubSub pubSub = new PubSub();
    private @Nullable Thread thread;
    /** The pub/sub thread's alone, as is {@link #idleDiscarded}. */
    private final OutageTracker outages;
    /** Whether the idle pooled connections were dropped in the current outage. */
    private boolean idleDiscarded;

    private boolean connected;
    private volatile boolean closed;

    public WakeUpHub(UnifiedJedis jedis, String controlChannel, ThreadFactory threadFactory, Duration timeout) {
        this.jedis = jedis;
        this.controlChannel = controlChannel;
        this.threadFactory = threadFactory;
        this.timeout = timeout;
        this.outages = new OutageTracker(SUBJECT, timeout, this::notifyAllListeners);
    }

    @Override
    public Subscription subscribe(String channel, String lockName, WakeUpListener listener) {
        CompletableFuture<Void> confirmed;
        lock.lock();
        try {
            if (closed) {
                throw new LockException(lockName, "the Redis lock provider is closed");
            }
            listeners.add(channel, listener);
            if (thread != null && connected && requested.add(channel)) {
                confirmed = new CompletableFuture<>();
                confirmations.put(channel, confirmed);
                pending.computeIfAbsent(channel, c -> new java.util.ArrayDeque<>())
                        .add(confirmed);
                pubSub.subscribe(channel);
            } else {
                confirmed = confirmations.computeIfAbsent(channel, c -> new CompletableFuture<>());
                if (thread == null) {
                    startThread();
                }
            }
        } finally {
            lock.unlock();
        }
        Subscription subscription = () -> unsubscribe(channel, listener);
        try {
            WakeUps.awaitConfirmation(confirmed, timeout, listener);
        } catch (ExecutionException e) {
            subscription.close();
            throw RedisErrors.subscriptionFailed(lockName, "the wake-up subscription failed", e);
        }
        return subscription;
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (thread == null && !closed) {
                startThread(); // it connects and subscribes to the control channel on its own
            }
        } finally {
            lock.unlock();
        }
    }

    /** Under {@link #lock}. */
    private void startThread() {
        thread = threadFactory.newThread(this::run);
        thread.setDaemon(true);
        thread.start();
    }

    private void unsubscribe(String channel, WakeUpListener listener) {
        lock.lock();
        try {
            if (!listeners.remove(channel, listener)) {
                return;
            }
            confirmations.remove(channel);
            if (connected && requested.remove(channel)) {
                pubSub.unsubscribe(channel);
            }
        } catch (RuntimeException e) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "unsubscribing from " + channel + " failed; the reconnect will drop it",
                    e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int channels() {
        return listeners.size();
    }

    @Override
    public void close() {
        Thread t;
        lock.lock();
        try {
            closed = true;
            t = thread;
            if (connected) {
                try {
                    pubSub.unsubscribe();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "unsubscribing on close failed", e);
                }
            }
        } finally {
            lock.unlock();
        }
        confirmations.values().forEach(f -> f.completeExceptionally(new IllegalStateException("closed")));
        notifyAllListeners(); // parked waiters try again and learn that the provider is closed
        if (t != null) {
            t.interrupt();
            try {
                t.join(timeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void notifyAllListeners() {
        listeners.missedAll();
    }

    private void run() {
        // No pause before the first reconnect after a working connection broke, nor after an
        // attempt that met a dead pooled connection (killed with the command connections, a proxy
        // restart): Jedis borrows the subscription connection from the command pool, whose idle
        // connections may all be dead at once. Only failures on fresh connections back off.
        long backoff = 0;
        boolean reconnect = false;
        while (!closed) {
            String[] channels;
            lock.lock();
            try {
                requested.clear();
                pending.clear(); // a new connection: its confirmations answer the channels subscribed below
                requested.add(controlChannel);
                requested.addAll(listeners.keys());
                if (reconnect) {
                    toResync.addAll(listeners.keys());
                }
                channels = requested.toArray(String[]::new);
            } finally {
                lock.unlock();
            }
            try {
                // A connection on which Redis refused a command (an ACL without a channel) may still
                // be subscribed: Pools.subscribe never lets it back into the command pool.
                Pools.subscribe(jedis, pubSub, channels);
                backoff = 0; // ended without an error (every channel unsubscribed): start over at once
            } catch (RuntimeException e) {
                if (closed) {
                    break;
                }
                backoff = failed(e);
            } finally {
                lock.lock();
                try {
                    connected = false;
                } finally {
                    lock.unlock();
                }
            }
            reconnect = true;
            if (backoff > 0) {
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException e) {
                    if (closed) {
                        break;
                    }
                }
            }
        }
    }

    /** After a failed subscribe loop: the pause in ms before the next attempt. */
    private long failed(RuntimeException e) {
        boolean wasConnected;
        lock.lock();
        try {
            wasConnected = connected;
        } finally {
            lock.unlock();
        }
        boolean newOutage = wasConnected || !outages.inOutage();
        if (!newOutage && !idleDiscarded) {
            // A reconnect failed at once: likely on an idle pooled connection that died with the
            // others. Drop the idle ones and try again on a fresh one, now.
            idleDiscarded = true;
            Pools.discardIdle(jedis);
            return outages.failedAtOnce(e);
        }
        // A working connection broke or the first attempt failed (a new outage: the next attempt at
        // once), or one on a fresh connection failed (the pause grows).
        idleDiscarded &= !newOutage;
        return outages.failed(wasConnected, e);
    }

    /** Called on the pub/sub thread when a connection is confirmed: the outage, if any, is over. */
    private void connectionMade() {
        outages.over();
    }

    private final class PubSub extends JedisPubSub {
        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            List<String> late = new ArrayList<>();
            CompletableFuture<Void> oldest;
            lock.lock();
            try {
                if (closed) {
                    // Closed while connecting: close() found no connection to end, so end it here.
                    unsubscribe();
                    return;
                }
                if (!connected) {
                    connected = true;
                    connectionMade();
                    // Channels added while the connection was being made.
                    for (String c : listeners.keys()) {
                        if (requested.add(c)) {
                            late.add(c);
                        }
                    }
                    if (!late.isEmpty()) {
                        subscribe(late.toArray(String[]::new));
                    }
                }
                java.util.ArrayDeque<CompletableFuture<Void>> sent = pending.get(channel);
                oldest = sent == null ? null : sent.poll();
                if (sent != null && sent.isEmpty()) {
                    pending.remove(channel);
                }
            } finally {
                lock.unlock();
            }
            CompletableFuture<Void> f = oldest != null ? oldest : confirmations.get(channel);
            if (f != null) {
                f.complete(null);
            }
            if (toResync.remove(channel)) {
                listeners.missed(channel);
            }
        }

        @Override
        public void onMessage(String channel, String message) {
            WakeUps.deliver(listeners, channel, message);
        }
    }
}
