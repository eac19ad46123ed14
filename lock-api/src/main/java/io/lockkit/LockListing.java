package io.lockkit;

import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProvider.HeldLock;
import io.lockkit.spi.LockProvider.ListPage;
import io.lockkit.spi.LockProvider.LockState;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jspecify.annotations.Nullable;

/**
 * The core's side of inspection: a provider's {@link LockState} turned into a {@link LockInfo},
 * and {@link LockOperations#locks(String)}'s lazy stream over the provider's pages.
 *
 * <p>Design notes. The stream pulls one page ({@link LockProvider#list}) when its buffer is empty,
 * on the consuming thread, so at most one page of {@value #PAGE_SIZE} entries is in memory. Pages
 * are cursor-addressed and a cursor holds no connection, so closing the stream only stops the
 * pulling and drops the buffer; a closed stream (or a closed factory) fetches no further page.
 */
final class LockListing {

    /**
     * Entries one page examines: large enough that a listing of 100,000 locks is a few hundred
     * round trips, small enough that one page never blocks a Redis server noticeably.
     */
    static final int PAGE_SIZE = 500;

    private LockListing() {}

    /** @throws IllegalArgumentException when the prefix is null or longer than a lock name may be */
    static String checkPrefix(String prefix) {
        if (prefix == null) {
            throw new IllegalArgumentException("prefix must not be null (use \"\" for all locks)");
        }
        if (prefix.length() > LockNames.MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "prefix must be at most " + LockNames.MAX_LENGTH + " characters, was " + prefix.length());
        }
        return prefix;
    }

    /** The info of a held lock; empty when the state names no owner (the lock is free). */
    static Optional<LockInfo> info(String name, LockState state) {
        Map.Entry<String, Integer> holder = null;
        for (Map.Entry<String, Integer> e : state.holdCounts().entrySet()) {
            if (holder == null || e.getValue() > holder.getValue()) {
                holder = e; // one owner in practice; the one with the most holds otherwise
            }
        }
        if (holder == null) {
            return Optional.empty();
        }
        String owner = holder.getKey();
        Duration left = state.remainingLease().isNegative() ? Duration.ZERO : state.remainingLease();
        java.util.List<LockInfo.Holder> holders = new java.util.ArrayList<>();
        state.holdCounts().forEach((o, count) -> {
            io.lockkit.spi.Claim c = state.claimOf(o);
            holders.add(new LockInfo.Holder(o, !c.exclusive(), c.weight(), Math.max(0, count)));
        });
        return Optional.of(new LockInfo(
                name,
                owner,
                LockInfo.clientIdOf(owner),
                Math.max(0, holder.getValue()),
                Math.max(0, state.fencingToken()),
                left,
                Math.max(-1, state.waiters()),
                holders,
                Math.max(-1, state.capacity())));
    }

    /** A lazy stream of the held locks whose names start with {@code prefix}; {@code checkOpen} runs before each page. */
    static Stream<LockInfo> stream(LockProvider provider, String prefix, int pageSize, Runnable checkOpen) {
        Pages pages = new Pages(provider, prefix, pageSize, checkOpen);
        return StreamSupport.stream(pages, false).onClose(pages::close);
    }

    /** Pulls pages one at a time; single-threaded, as a sequential stream's spliterator is used. */
    private static final class Pages extends Spliterators.AbstractSpliterator<LockInfo> {
        private final LockProvider provider;
        private final String prefix;
        private final int pageSize;
        private final Runnable checkOpen;
        private final ArrayDeque<HeldLock> buffer = new ArrayDeque<>();
        private @Nullable String cursor;
        private boolean started;
        private volatile boolean closed;

        Pages(LockProvider provider, String prefix, int pageSize, Runnable checkOpen) {
            super(Long.MAX_VALUE, Spliterator.NONNULL);
            this.provider = provider;
            this.prefix = prefix;
            this.pageSize = pageSize;
            this.checkOpen = checkOpen;
        }

        @Override
        public boolean tryAdvance(Consumer<? super LockInfo> action) {
            while (!closed) {
                HeldLock next = buffer.poll();
                if (next != null) {
                    Optional<LockInfo> info = info(next.name(), next.state());
                    if (info.isPresent() && next.name().startsWith(prefix)) {
                        action.accept(info.get());
                        return true;
                    }
                    continue;
                }
                if (started && cursor == null) {
                    return false;
                }
                checkOpen.run();
                ListPage page = provider.list(prefix, cursor, pageSize);
                started = true;
                cursor = page.next();
                buffer.addAll(page.locks());
            }
            return false;
        }

        void close() {
            closed = true;
            buffer.clear();
        }
    }
}
