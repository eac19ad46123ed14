package io.lockkit.spi.support;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.WakeUpListener;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A provider's waiters by key (a channel, a lock key): the {@link WakeUpListener}s that its
 * {@link LockProvider#subscribe} registered, and the two things a provider tells them, a release and
 * a possibly missed notification. For provider authors; thread-safe. Adding and removing are atomic
 * per key, so a listener added while the last one of its key leaves is never dropped, and {@link
 * #add} and {@link #remove} say when a key gains its first or loses its last listener (when the
 * provider starts or stops listening to it).
 */
public final class WakeUpListeners {

    private final ConcurrentHashMap<String, List<WakeUpListener>> byKey = new ConcurrentHashMap<>();

    /** No listeners yet. */
    public WakeUpListeners() {}

    /**
     * Registers {@code listener} under {@code key}.
     *
     * @return whether it is the key's first listener
     */
    public boolean add(String key, WakeUpListener listener) {
        boolean[] first = {false};
        byKey.compute(key, (k, list) -> {
            List<WakeUpListener> l = list;
            if (l == null) {
                l = new CopyOnWriteArrayList<>();
                first[0] = true;
            }
            l.add(listener);
            return l;
        });
        return first[0];
    }

    /**
     * Removes {@code listener} from {@code key}'s listeners.
     *
     * @return whether it was there and was the key's last listener (false when it was not there)
     */
    public boolean remove(String key, WakeUpListener listener) {
        boolean[] last = {false};
        byKey.computeIfPresent(key, (k, list) -> {
            if (!list.remove(listener) || !list.isEmpty()) {
                return list;
            }
            last[0] = true;
            return null;
        });
        return last[0];
    }

    /**
     * Tells {@code key}'s listeners that its lock was released: handed to {@code grantee}, or free
     * when it is null (see {@link WakeUpListener#released}).
     */
    public void released(String key, @Nullable String grantee) {
        List<WakeUpListener> list = byKey.get(key);
        if (list != null) {
            for (WakeUpListener listener : list) {
                listener.released(grantee);
            }
        }
    }

    /**
     * Tells {@code key}'s listeners that its lock was granted outright to {@code grantee}'s wait
     * {@code waitId} (see {@link WakeUpListener#granted}).
     */
    public void granted(String key, String grantee, long waitId, long token, java.time.Duration lease) {
        List<WakeUpListener> list = byKey.get(key);
        if (list != null) {
            for (WakeUpListener listener : list) {
                listener.granted(grantee, waitId, token, lease);
            }
        }
    }

    /** Tells {@code key}'s listeners to look again: a notification may have been missed. */
    public void missed(String key) {
        List<WakeUpListener> list = byKey.get(key);
        if (list != null) {
            for (WakeUpListener listener : list) {
                listener.missedNotifications();
            }
        }
    }

    /** Tells every listener to look again (after a reconnect, at close). */
    public void missedAll() {
        for (List<WakeUpListener> list : byKey.values()) {
            for (WakeUpListener listener : list) {
                listener.missedNotifications();
            }
        }
    }

    /** Whether {@code key} has listeners. */
    public boolean contains(String key) {
        return byKey.containsKey(key);
    }

    /** The keys with listeners, a live unmodifiable view. */
    public Set<String> keys() {
        return Collections.unmodifiableSet(byKey.keySet());
    }

    /** How many keys have listeners. */
    public int size() {
        return byKey.size();
    }

    /** Forgets every listener (at close, after telling them). */
    public void clear() {
        byKey.clear();
    }

    @Override
    public String toString() {
        return "WakeUpListeners[" + byKey.size() + " keys]";
    }
}
