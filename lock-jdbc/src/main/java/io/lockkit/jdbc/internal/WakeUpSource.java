package io.lockkit.jdbc.internal;

import java.time.Duration;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Where a provider hears of other clients' releases: PostgreSQL's LISTEN connection
 * ({@link PgListener}), or MariaDB's poller. Started by the first wait of
 * the provider, closed with it. Implementations are thread-safe.
 */
public interface WakeUpSource extends AutoCloseable {

    /** What a source reports to: the provider's waiters. Called on the source's thread. */
    interface Dispatcher {
        /** The lock with this key was released: free ({@code grantee} null) or handed to {@code grantee}. */
        void released(String key, @Nullable String grantee);

        /** Releases may have been missed (connection lost or just re-established): every waiter looks again. */
        void missed();

        /** The row keys of the locks the provider's threads wait for now (a live view). */
        Set<String> waitedKeys();
    }

    /** Waits up to {@code timeout} until releases are being heard; whether they are now. */
    boolean awaitLive(Duration timeout);

    /** Whether releases are being heard now. */
    boolean live();

    /** Stops the source's thread and closes its connection; idempotent. */
    @Override
    void close();
}
