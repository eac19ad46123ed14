package io.lockkit.jdbc.internal;

import io.lockkit.spi.Claim;
import io.lockkit.spi.LockProvider.HeldLock;
import io.lockkit.spi.LockProvider.ListPage;
import io.lockkit.spi.LockProvider.LockState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What operators read of a provider's locks ({@code inspect} and {@code list}), one statement per
 * call or page: the holders of a name (its exclusive holder, or its shared holders with the
 * exclusive one they stand beside), the longest lease left, the newest token and the live waiters.
 * Stateless and thread-safe.
 */
public final class Inspection {

    private Inspection() {}

    /** The state of {@code name} (each shared holder's permits and the stored capacity too), or empty when it is free. */
    public static Optional<LockState> inspect(JdbcCalls calls, Dialect sql, String name) {
        InspectStatement.Args args = new InspectStatement.Args(Keys.of(name));
        InspectStatement.Reply reply = calls.run(name, "inspecting", c -> sql.inspect(c, args));
        if (!(reply instanceof InspectStatement.Held h)) {
            return Optional.empty();
        }
        Map<String, Claim> claims = new HashMap<>();
        h.weights().forEach((owner, weight) -> claims.put(owner, Claim.shared(weight, Claim.UNBOUNDED)));
        return Optional.of(new LockState(
                h.holdCounts(),
                h.remaining(),
                h.token(),
                h.waiters(),
                claims,
                h.capacity() < 1 ? LockState.NO_CAPACITY : h.capacity()));
    }

    /**
     * One page of held locks by name prefix, one query: keyset pagination on the row key (the cursor
     * is the last key of the page), names compared without {@code LIKE}, so no wildcard needs
     * escaping. Waiters are counted where the dialect queues them (else -1).
     */
    public static ListPage list(JdbcCalls calls, Dialect sql, String prefix, @Nullable String cursor, int pageSize) {
        ListStatement.Args args = ListStatement.Args.of(prefix, cursor, pageSize);
        List<ListStatement.Row> rows = calls.run(null, "listing locks", c -> sql.list(c, args));
        List<HeldLock> page = new ArrayList<>(rows.size());
        for (ListStatement.Row row : rows) {
            page.add(new HeldLock(row.name(), state(row.held())));
        }
        return new ListPage(
                page, rows.size() < pageSize ? null : rows.get(rows.size() - 1).key());
    }

    private static LockState state(InspectStatement.Held h) {
        return new LockState(h.holdCounts(), h.remaining(), h.token(), h.waiters());
    }
}
