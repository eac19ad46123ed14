package io.lockkit.quarkus.internal;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockInfo;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The Dev UI card's JSON-RPC methods: the backend the application's factory uses, and the locks
 * this application holds now. Registered in dev mode only; every call asks the backend afresh.
 */
// Design notes.
// - "This application's" locks are those whose holder's client id is the factory's: the listing
//   (LockOperations#locks) covers the whole key prefix, which other instances may share.
// - The methods return plain values, so the Dev UI calls them on a worker thread: they wait for the
//   backend (bounded by its timeout), never on the event loop.
// - An application's own DistributedLockFactory without listing or client id fails the call with
//   the factory's UnsupportedOperationException, which the page shows.
public class LockkitDevUiService {

    /** The most rows one call returns, so a dev application holding very many locks stays usable. */
    static final int MAX_ROWS = 1000;

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

    @Inject
    DistributedLockFactory factory;

    /**
     * One lock this application holds, as the page shows it.
     *
     * @param name the lock's name
     * @param holder the holder's owner id ({@code <client id>:<owner within the client>})
     * @param fencingToken the holder's fencing token, 0 when the backend has none
     * @param leaseLeftMillis the lease left, in milliseconds, as the backend counts it
     * @param holdCount how many times the holder took the lock without releasing it
     * @param waiters owners waiting for the lock, -1 when the backend cannot tell
     */
    public record HeldLock(
            String name, String holder, long fencingToken, long leaseLeftMillis, int holdCount, int waiters) {

        static HeldLock of(LockInfo info) {
            return new HeldLock(
                    info.name(),
                    info.owner(),
                    info.fencingToken(),
                    info.leaseLeft().toMillis(),
                    info.holdCount(),
                    info.waiters());
        }
    }

    /** The provider in use and where its backend is, as the factory describes it (one probe of the backend). */
    public String getBackend() {
        return factory.operations().health(PROBE_TIMEOUT).backend();
    }

    /** The client id of this application's factory: the first part of its holds' owner ids. */
    public String getClientId() {
        return factory.clientId();
    }

    /** The locks this application holds now, by name; at most {@value #MAX_ROWS}. */
    public List<HeldLock> getHeldLocks() {
        String clientId = factory.clientId();
        Map<String, HeldLock> byName = new TreeMap<>(); // a Redis listing may return a lock twice
        try (Stream<LockInfo> locks = factory.operations().locks("")) {
            locks.filter(info -> info.clientId().equals(clientId))
                    .forEach(info -> byName.putIfAbsent(info.name(), HeldLock.of(info)));
        }
        return byName.values().stream().limit(MAX_ROWS).toList();
    }

    /** How many locks this application holds now, for the card's label. */
    public int getHeldLockCount() {
        return getHeldLocks().size();
    }
}
