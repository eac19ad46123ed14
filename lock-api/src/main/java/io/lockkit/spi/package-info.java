/**
 * The provider SPI: what a lock backend implements. Waiting, lease renewal, hold bookkeeping and
 * loss reporting live in the caller API's core, so a backend is a few hundred lines. Start at
 * {@link io.lockkit.spi.LockProvider}; a {@link io.lockkit.spi.LockProviderFactory} found by
 * {@link java.util.ServiceLoader} lets containers and tools build the provider from
 * configuration ({@code lockkit.provider=<name>}).
 *
 * <h2>Glossary</h2>
 * <dl>
 *   <dt>name</dt>
 *   <dd>A lock's name, as the caller gave it: 1 to 8,192 chars (up to 24 KiB in UTF-8; the core
 *       refuses longer ones, blank ones, control characters and unpaired surrogates). A backend
 *       keeps a name whole and compares names exactly, code point by code point: names that
 *       differ in any code point are different locks, even when Unicode calls them equivalent
 *       ({@code "é"} as U+00E9 and as {@code "e"} + U+0301), or a case-insensitive,
 *       accent-insensitive or padding collation would call them equal ({@code "a"}, {@code "A"},
 *       {@code "á"}, {@code "a "}). {@link io.lockkit.spi.LockProvider#list list} matches its
 *       prefix the same way and returns names exactly as they were locked. A database column
 *       therefore needs a binary collation (or the backend keys rows by a hash of the UTF-8
 *       bytes).</dd>
 *   <dt>client</dt>
 *   <dd>One {@code DistributedLockFactory} over one provider instance, as one process would have:
 *       its id ({@code DistributedLockFactory.clientId()}, by default {@code <host>/<pid>/<suffix>},
 *       at most 64 characters of {@code A-Z a-z 0-9 . _ - / @ +}) is the part of an owner id before
 *       the first colon, and differs between factories.</dd>
 *   <dt>owner</dt>
 *   <dd>Who a hold belongs to, as an owner id {@code <client id>:<owner within the client>} (a
 *       thread, {@code :t<thread id>}, or a handle, {@code :h<sequence>}; no spaces; about 35
 *       chars at most). Every call about a hold names its owner; only the owner can release or
 *       renew it. Owner ids are compared whole: {@code c:h1} is not {@code c:h10}, nor
 *       {@code c:t1}.</dd>
 *   <dt>holder</dt>
 *   <dd>The owner that holds a lock now. A lock has at most one holder.</dd>
 *   <dt>hold count</dt>
 *   <dd>How many times the holder has acquired the lock without releasing it (reentrancy):
 *       {@link io.lockkit.spi.LockProvider#tryAcquire tryAcquire} by the holder raises it,
 *       {@link io.lockkit.spi.LockProvider#release release} lowers it, and at zero the lock is
 *       free ({@link io.lockkit.spi.Release.Outcome#RELEASED}; above zero
 *       {@link io.lockkit.spi.Release.Outcome#STILL_HELD}). A backend counts at least to
 *       2^31 - 1.</dd>
 *   <dt>lease</dt>
 *   <dd>How long the backend keeps a hold without hearing from its owner, counted by the
 *       backend from when it handles the request. A lease that runs out frees the lock whatever
 *       its hold count; the core learns of it at the next
 *       {@link io.lockkit.spi.LockProvider#renew renew} or release. The watchdog lease is the one
 *       the core renews by itself. A backend keeps every lease the caller API accepts, from
 *       1 ms to {@link io.lockkit.LockOptions#MAX_DURATION} (about 100 years), as asked: not
 *       clamped, not in 32-bit milliseconds.</dd>
 *   <dt>fencing token</dt>
 *   <dd>A number that comes with each acquisition that is not reentrant and is greater than the
 *       token of every earlier holder of that name (across expiry, force release and restarts),
 *       so a resource can refuse a stale holder. A reentrant acquisition returns the current
 *       token. Meaningful only with {@link io.lockkit.spi.LockProvider.Capability#FENCING_TOKENS}.</dd>
 *   <dt>retryAfter</dt>
 *   <dd>The hint that comes with a busy {@link io.lockkit.spi.Acquisition}: try again after this
 *       at the latest (normally the time left on the holder's lease), unless a wake-up comes
 *       first.</dd>
 *   <dt>wake-up</dt>
 *   <dd>A release notification to a {@link io.lockkit.spi.LockProvider.WakeUpListener}, so
 *       waiters try again before their retryAfter; {@code missedNotifications} when some may have
 *       been lost.</dd>
 *   <dt>wait, wait id</dt>
 *   <dd>One call of the caller API that may wait ({@code lock()}, a timed {@code tryLock}, a
 *       waiting {@code acquire}), made of several attempts; the wait id, the same in all of them
 *       and never reused by the client, is {@link io.lockkit.spi.LockProvider.LockRequest#waitId()}
 *       (0 outside a wait).</dd>
 *   <dt>hand-over, grantee</dt>
 *   <dd>Optional: a release that gives the freed lock to a queued waiter, the grantee, which
 *       claims it with its next attempt ({@link io.lockkit.spi.Release#grantee()}).</dd>
 *   <dt>grant (direct grant)</dt>
 *   <dd>Optional: a hand-over to a waiter of the releasing client that makes it the holder at
 *       once, tied to its wait id ({@link io.lockkit.spi.Release#grantedTo}); the core passes the
 *       token to the wait, and {@link io.lockkit.spi.LockProvider#abandon abandon} of a wait that
 *       ended gives it back.</dd>
 *   <dt>heard grant</dt>
 *   <dd>Optional: a grant to a waiter of another client, which the backend tells that client
 *       ({@link io.lockkit.spi.LockProvider.WakeUpListener#granted}); the core passes the token to
 *       the wait, its lease counted from the wait's latest attempt.</dd>
 *   <dt>abandon</dt>
 *   <dd>Optional: the end of a wait without the lock; the backend forgets the waiter's queue
 *       entry and any hand-over or grant it did not take.</dd>
 *   <dt>capability</dt>
 *   <dd>An ability beyond the required calls that a provider declares in
 *       {@link io.lockkit.spi.LockProvider#capabilities()}; the caller API refuses loudly what is
 *       not declared.</dd>
 *   <dt>closed</dt>
 *   <dd>A provider after {@link io.lockkit.spi.LockProvider#close()}: every call but
 *       {@code close()} and {@code capabilities()} throws {@code io.lockkit.LockException}.</dd>
 * </dl>
 */
@NullMarked
package io.lockkit.spi;

import org.jspecify.annotations.NullMarked;
