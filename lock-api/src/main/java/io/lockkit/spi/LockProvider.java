package io.lockkit.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A lock backend. The lock-api core owns waiting, the watchdog, hold bookkeeping and loss
 * reporting; a provider only answers these calls, each in at most one round trip to its backend.
 * The words used here (holder, owner, client, hold count, lease, fencing token, wait id, grant)
 * are defined in the {@linkplain io.lockkit.spi package glossary}.
 *
 * <p>To implement: {@link #tryAcquire}, {@link #release}, {@link #renew}, {@link #forceRelease},
 * {@link #inspect} and {@link #subscribe} against the backend, {@link #capabilities} as a
 * constant, and {@link #close}; optionally {@link #list} (listing held locks by prefix), and
 * {@link #tryAcquireAll} / {@link #releaseAll} (a multi-lock's calls, sent together). Run {@code io.lockkit.testkit.LockContractTest} (lock-testkit)
 * against it. Implementations are thread-safe. Backend failures are reported as
 * {@link io.lockkit.BackendUnavailableException} within the provider's configured timeout; no
 * call blocks waiting for a lock to become free. An interrupt of the calling thread is the
 * caller's business: no call fails because of it or clears it (a call may return early, as
 * {@link #subscribe} may), and the core then ends an interruptible wait with
 * {@code InterruptedException} or, in {@code lock()}, keeps waiting with the interrupt set.
 *
 * <p><b>After {@link #close()}</b> every call but {@code close()} itself (idempotent) and
 * {@link #capabilities()} (a constant) throws a {@link io.lockkit.LockException} naming the lock
 * (not a {@code BackendUnavailableException}: the backend is not down, this client is gone), at
 * once and without touching the backend; an {@link #abandon} the provider does not implement
 * may keep doing nothing. Subscriptions made before stay closeable. A call already running when
 * {@code close()} is called may fail as a backend failure instead.
 *
 * <h2 id="direct-hand-over">Optional: direct hand-over</h2>
 *
 * A provider may ignore all of this; {@link io.lockkit.LocalLockProvider} does (it answers
 * releases with {@link Release#RELEASED}, wakes with a {@code null} grantee and keeps the default
 * {@code abandon}). A backend that queues its waiters can
 * instead hand a released lock to one of them, so that a waiting owner is not overtaken by a
 * newcomer and only the grantee is woken:
 * <ul>
 *   <li><b>Owner ids</b> have the form {@code <client id>:<owner within the client>}: owners that
 *       share the client part live in one process (one factory), which a backend may use to hand
 *       a lock over within a process first. Owner ids contain no spaces.</li>
 *   <li><b>Wait ids</b> ({@link LockRequest#waitId()}) tell the attempts of one wait from those of
 *       the next wait of the same owner: one id per wait (a {@code lock()}, a timed
 *       {@code tryLock}, a waiting {@code acquire}), never reused by the client, 0 outside a
 *       wait. A {@linkplain LockRequest#waiting() waiting} request may queue its owner.</li>
 *   <li><b>A hand-over</b>: the release that frees the lock gives it to a queued waiter, and
 *       answers {@code new Release(RELEASED, grantee)}; the grantee claims it with its next
 *       attempt, and if it never does, the lock lapses after a claim timeout of the backend's
 *       choosing.</li>
 *   <li><b>A direct grant</b> to a waiter of the releasing client (same client part): the
 *       release makes the grantee the holder at once, with the lease of its waiting request, and
 *       answers {@link Release#grantedTo Release.grantedTo(grantee, token, waitId)}; the core
 *       passes the token to that wait without a call. A later attempt of the same wait takes the
 *       grant without raising the hold count and sets its lease anew.</li>
 *   <li><b>A heard grant</b> to a waiter of another client: the release makes the grantee the
 *       holder at once, with a lease of at most its waiting request's (the backend may cut it to
 *       its claim timeout), and tells the grantee's client with
 *       {@link WakeUpListener#granted WakeUpListener.granted(grantee, waitId, token, lease)}, which
 *       hands the token to that wait without a call (see there for why its lease is safe to count).
 *       Only to a wait of a client that hears such grants (one that said so in its waiting
 *       request); the release answers {@code new Release(RELEASED, grantee)}, as for a hand-over.</li>
 *   <li><b>The grantee wake-up</b>: the releasing client's core wakes its own grantee from the
 *       {@code Release} answer; the backend tells the other clients with
 *       {@link WakeUpListener#released released(grantee)}, on which the grantee's client wakes
 *       the grantee only and the rest wake nobody (telling the releasing client too costs it an
 *       extra attempt at most). A lock freed with nobody to hand it to is announced with
 *       {@code released(null)}, which wakes one waiter per client.</li>
 *   <li><b>{@link #abandon}</b>: a wait that ends without the lock (timeout, interrupt, close) is
 *       abandoned; the backend drops its queue entry and gives back a hand-over or grant made to
 *       it and not yet taken, passing it on to the next waiter.</li>
 * </ul>
 */
public interface LockProvider extends AutoCloseable {

    /**
     * One attempt to take {@code request.name()} for {@code request.owner()}. Reentrant: an owner
     * that already holds the lock gets its hold count raised and its existing token back.
     */
    Acquisition tryAcquire(LockRequest request);

    /** Lowers the owner's hold count by one; at zero the lock is freed (or handed to a waiter). */
    Release release(String name, String owner);

    /**
     * Optional; the default calls {@link #tryAcquire} for each request in turn. Attempts of several
     * names at once (a multi-lock), each as {@link #tryAcquire} would answer it alone; a backend
     * may send them together (the Redis provider: one pipelined write per node). The core sends
     * only attempts that do not wait ({@code maxWait} zero, wait id 0), each for its own owner.
     *
     * @return the answers, in request order
     * @throws RuntimeException a backend failure fails the whole call, as {@link #tryAcquire}
     *     fails; what each request did is then unknown, as for any call whose answer was lost
     */
    default List<Acquisition> tryAcquireAll(List<LockRequest> requests) {
        List<Acquisition> answers = new java.util.ArrayList<>(requests.size());
        for (LockRequest r : requests) {
            answers.add(tryAcquire(r));
        }
        return answers;
    }

    /**
     * Optional; the default calls {@link #release} for each hold in turn. Lowers the hold count
     * of each {@code (name, owner)} by one, as {@link #release} would; a backend may send them
     * together, as {@link #tryAcquireAll} does.
     *
     * @return the answers, in request order
     * @throws RuntimeException a backend failure fails the whole call, as {@link #release} fails;
     *     what each release did is then unknown
     */
    default List<Release> releaseAll(List<ReleaseRequest> holds) {
        List<Release> answers = new java.util.ArrayList<>(holds.size());
        for (ReleaseRequest h : holds) {
            answers.add(release(h.name(), h.owner()));
        }
        return answers;
    }

    /**
     * Sets each hold's lease to the given length from now, in as few round trips as the backend
     * allows.
     *
     * @return the renewals whose hold no longer exists (lost)
     */
    List<Renewal> renew(List<Renewal> renewals);

    /**
     * Optional (see "Optional: direct hand-over" above); the default does nothing. The owner stopped waiting ({@code waitId} as in its requests) without the
     * lock: forget its place in any queue, and decline a hand-over it has not claimed, including
     * one the backend granted to this very wait directly ({@link Release#grantToken()}) that the
     * owner has not learned of. A backend may also give back a hold an attempt of this wait took
     * whose answer the owner never got (a timeout). A hold the owner took in another wait stays.
     */
    default void abandon(String name, String owner, long waitId) {}

    /** Frees the lock whoever holds it; returns whether it was held. */
    boolean forceRelease(String name);

    /**
     * Stores {@code capacity} (at least 1) as the capacity of {@code name}'s shared holds, for
     * operators (a semaphore's size): holders over a reduced capacity keep their permits until they
     * release or lapse, and no permit is granted until the weights held fit it; waiters are woken
     * to try against it, as a release wakes them. Supported by providers that declare
     * {@link Capability#SHARED_HOLDS}.
     *
     * @throws UnsupportedOperationException by default: the provider stores no capacities
     */
    default void setCapacity(String name, int capacity) {
        throw new UnsupportedOperationException(this + " stores no capacities (it has no SHARED_HOLDS)");
    }

    /**
     * Who holds the lock now, or empty when it is free; one round trip. A backend fills in the
     * fencing token and the number of waiters when it knows them ({@link LockState}).
     */
    Optional<LockState> inspect(String name);

    /**
     * Optional ({@link Capability#LISTING}); the default refuses. One page of the locks held now
     * whose names start with {@code prefix} ({@code ""}: all), for operators: the page examines
     * about {@code pageSize} of the backend's entries (a Redis {@code SCAN} with that
     * {@code COUNT}, a SQL page of that many rows), so memory and the time of one call stay bounded
     * however many locks exist; it may take two round trips (a scan and one batched read of what it
     * found). Free locks are left out, so a page may hold fewer locks than
     * {@code pageSize}, even none, while more pages follow. Pass {@link ListPage#next()} back as
     * {@code cursor} ({@code null} for the first page) until it is {@code null}. A cursor holds no
     * backend resources: abandoning a listing halfway costs nothing.
     *
     * <p>A lock held from the first page to the last is listed at least once; a backend whose scan
     * can return an entry twice (Redis during a rehash) may list it twice, and a lock taken or
     * freed during the listing may or may not appear. No order is promised.
     *
     * @param prefix the start of the names to list, matched literally (no wildcards)
     * @param cursor {@code null} for the first page, else the previous page's {@link ListPage#next()}
     * @param pageSize how many entries one call examines, at least 1
     * @throws UnsupportedOperationException when the provider does not declare {@link Capability#LISTING}
     * @throws IllegalArgumentException when the cursor is not one this provider handed out
     */
    default ListPage list(String prefix, @Nullable String cursor, int pageSize) {
        throw new UnsupportedOperationException("listing locks is not supported by " + this);
    }

    /**
     * Delivers release notifications for {@code name} to {@code listener} until the returned
     * subscription is closed. Returns once notifications are being delivered, or earlier (slow to
     * confirm, or the calling thread interrupted) having arranged to call
     * {@link WakeUpListener#missedNotifications()} once they are.
     */
    Subscription subscribe(String name, WakeUpListener listener);

    /**
     * What this backend can do beyond the required calls: a constant, the same on every call, also
     * after {@link #close()}. The caller API refuses loudly what is not declared here, and the
     * contract kit skips its tests; declare only what the backend does.
     */
    Set<Capability> capabilities();

    /**
     * Optional; the default does nothing. Tells the provider the client id of a
     * {@code DistributedLockFactory} built over it ({@code DistributedLockFactory.clientId()}),
     * before that factory's first call, so the backend can show operators which instance it
     * serves (the Redis provider names its connections after it in {@code CLIENT LIST}). Called
     * once per factory; a provider under several factories hears each. Must not block or fail.
     */
    default void useClientId(String clientId) {}

    /**
     * Frees the backend's connections and threads; holds are not released here. Idempotent; every
     * later call but {@link #capabilities()} throws {@link io.lockkit.LockException}.
     */
    @Override
    void close();

    /**
     * One acquisition attempt: the lease to set (the watchdog's when the caller gave none; a
     * reentrant acquisition never shortens the current lease), how much longer the caller will
     * wait if the lock is busy (zero: it will not; the backend may queue waiting owners), and
     * which wait the attempt belongs to, and what the hold takes of the name ({@link Claim}:
     * {@link Claim#EXCLUSIVE} unless the provider declares {@link Capability#SHARED_HOLDS} or
     * {@link Capability#FAIR_QUEUE}).
     *
     * @param waitId the same for every attempt of one wait (one {@code lock()} or {@code tryLock}
     *        call) and never reused by the client; 0 for an attempt outside a wait. A backend
     *        that grants a lock to a waiter directly ({@link Release#grantToken()}) ties the grant
     *        to this id: an attempt of the same wait that meets the grant takes it without raising
     *        the hold count and sets its lease from now, as a new acquisition would (the client
     *        counts the lease from that attempt, and may never have heard of the release that
     *        made the grant), and {@link #abandon} of that wait gives it back.
     */
    record LockRequest(String name, String owner, Duration lease, Duration maxWait, long waitId, Claim claim) {

        /** An exclusive attempt (today's lock), as a provider without shared holds receives every one. */
        public LockRequest(String name, String owner, Duration lease, Duration maxWait, long waitId) {
            this(name, owner, lease, maxWait, waitId, Claim.EXCLUSIVE);
        }

        /** An exclusive attempt outside a wait, or from a caller that does not tell waits apart. */
        public LockRequest(String name, String owner, Duration lease, Duration maxWait) {
            this(name, owner, lease, maxWait, 0);
        }

        /** Whether the caller will wait if the lock is busy. */
        public boolean waiting() {
            return !maxWait.isZero();
        }
    }

    /** A lease to renew for an owner. */
    record Renewal(String name, String owner, Duration lease) {}

    /** One hold count of {@code name} to release for {@code owner} ({@link #releaseAll}). */
    record ReleaseRequest(String name, String owner) {}

    /**
     * The state of a held lock: owners with their hold counts (one owner for an exclusive hold; a
     * hold count of 0 means the lock was handed to a waiter that has not claimed it yet), the time
     * left on its longest lease, its current fencing token (0 when the backend has none), how many
     * owners wait for it (-1 when the backend cannot tell), the claim of each holder that is not
     * {@link Claim#EXCLUSIVE} (shared holders: readers, a semaphore's permits), and the capacity
     * stored with the name ({@link #NO_CAPACITY} when none is).
     */
    record LockState(
            java.util.Map<String, Integer> holdCounts,
            Duration remainingLease,
            long fencingToken,
            int waiters,
            java.util.Map<String, Claim> claims,
            int capacity) {

        /** The capacity of a name that has none stored (a lock, a read/write lock). */
        public static final int NO_CAPACITY = -1;

        /** A state of exclusive holds, as a backend without shared holds reports it. */
        public LockState(
                java.util.Map<String, Integer> holdCounts, Duration remainingLease, long fencingToken, int waiters) {
            this(holdCounts, remainingLease, fencingToken, waiters, java.util.Map.of(), NO_CAPACITY);
        }

        /** A state without a token or a waiter count, as a backend that knows neither reports it. */
        public LockState(java.util.Map<String, Integer> holdCounts, Duration remainingLease) {
            this(holdCounts, remainingLease, 0, -1);
        }

        /** {@code owner}'s claim: its entry in {@link #claims()}, else exclusive. */
        public Claim claimOf(String owner) {
            return claims.getOrDefault(owner, Claim.EXCLUSIVE);
        }

        /** The weights held by shared holders (a semaphore's permits in use; readers count one each). */
        public int sharedWeight() {
            int sum = 0;
            for (Claim c : claims.values()) {
                if (!c.exclusive()) {
                    sum += c.weight();
                }
            }
            return sum;
        }
    }

    /** A held lock found by {@link #list}: its name and state. */
    record HeldLock(String name, LockState state) {}

    /**
     * One page of {@link #list}: the held locks found (possibly none), and the cursor of the next
     * page, {@code null} after the last.
     */
    record ListPage(
            java.util.List<HeldLock> locks, @Nullable String next) {

        /**
         * Checks {@link #list}'s arguments for a provider: {@code prefix} non-null, {@code pageSize}
         * at least 1; an {@link IllegalArgumentException} names the bad one.
         */
        public static void checkArguments(@Nullable String prefix, int pageSize) {
            if (prefix == null) {
                throw new IllegalArgumentException("prefix must not be null");
            }
            if (pageSize < 1) {
                throw new IllegalArgumentException("pageSize must be at least 1, was " + pageSize);
            }
        }
    }

    /** A subscription to wake-ups; closing it is idempotent. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /** Receives release notifications; called on a backend thread, so implementations only signal. */
    interface WakeUpListener {
        /** The lock was released; {@code grantee} is the owner it was handed to, or null when it is free. */
        void released(@Nullable String grantee);

        /** Notifications may have been missed (reconnect): every waiter should check again. */
        void missedNotifications();

        /**
         * The lock was granted outright to {@code grantee}'s wait {@code waitId} by a release of
         * another client: the grantee holds it already, with fencing token {@code token}, until
         * {@code lease} after the release. Safe to rely on only because of how the backend grants:
         * to a wait of a client that said it hears such grants, after every attempt of that wait
         * it answered, so the grantee's client counts the lease from that wait's latest attempt
         * that found the lock busy, which was sent before the grant was made. The grantee's client
         * hands the lock to the wait without a call; the other clients wake nobody. If the wait has
         * ended, its {@link LockProvider#abandon abandon} gives the grant back. The default treats
         * the grant as a hand-over to claim ({@link #released released(grantee)}): the wait's next
         * attempt takes the grant, as the backend lets an attempt of the granted wait do.
         *
         * @param lease the lease the backend set, at most the one the wait asked for: a backend may
         *     set a shorter one, its claim timeout, so that a grantee that died costs no more than an
         *     unclaimed hand-over; the grantee's client renews it early
         */
        default void granted(String grantee, long waitId, long token, Duration lease) {
            released(grantee);
        }
    }

    /** Optional abilities; the caller API refuses loudly what a provider lacks. */
    enum Capability {
        /** {@link Acquisition#fencingToken()} is meaningful. */
        FENCING_TOKENS,
        /** {@link #forceRelease(String)} works. */
        FORCE_RELEASE,
        /** Caller-chosen lease lengths (else only the watchdog lease). */
        EXPLICIT_LEASE,
        /** {@link #inspect(String)} works. */
        INSPECTION,
        /** {@link #list(String, String, int)} works: held locks can be listed by name prefix, page by page. */
        LISTING,
        /**
         * Shared claims ({@link Claim#shared}) are admitted by the rule {@link Claim} states: read/write
         * locks and semaphores.
         */
        SHARED_HOLDS,
        /** Fair claims ({@link Claim#fairly()}) queue behind every live earlier waiter: the fair lock. */
        FAIR_QUEUE
    }
}
