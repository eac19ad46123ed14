package io.lockkit;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The owner names of one {@link ProviderLockFactory}: a thread owns its holds as
 * {@code <clientId>:t<threadId>}, a handle as {@code <clientId>:h<sequence>}. The client id names
 * host and process and differs per factory ({@link ClientIds}), so two factories (or two processes)
 * never share an owner. Thread-safe.
 */
final class Owners {

    private final String clientId;
    /** Every thread owner of this client starts with this. */
    private final String threadOwnerPrefix;
    /** Every handle owner of this client starts with this. */
    private final String handleOwnerPrefix;

    private final AtomicLong handleSequence = new AtomicLong();

    Owners(String clientId) {
        this.clientId = clientId;
        this.threadOwnerPrefix = clientId + ":t";
        this.handleOwnerPrefix = clientId + ":h";
    }

    String clientId() {
        return clientId;
    }

    /** The owner of the calling thread's holds. */
    String threadOwner() {
        // Built per call (about 60 bytes): a per-thread cache would cost each short-lived (virtual)
        // thread a thread-local map instead.
        return threadOwnerPrefix + Thread.currentThread().getId();
    }

    /** Whether {@code owner} is a thread of this client (handle owners are never used twice). */
    boolean isThreadOwner(String owner) {
        return owner.startsWith(threadOwnerPrefix);
    }

    /** A handle owner never used before on this client. */
    String nextHandleOwner() {
        return handleOwnerPrefix + handleSequence.incrementAndGet();
    }

    /** The start of every handle owner of this client. */
    String handleOwnerPrefix() {
        return handleOwnerPrefix;
    }
}
