package io.lockkit.jdbc.internal;

import io.lockkit.spi.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code renew} statement of every dialect: sets each hold's lease to its length from now, all
 * holds due in one round trip (PostgreSQL: one statement over arrays of the holds' values; H2 and
 * MariaDB: one JDBC batch of the statement per hold). A hold not renewed no longer exists (lost).
 * {@code SqlContractTest} holds the dialects' SQL to these names. Values are immutable and
 * thread-safe.
 */
public final class RenewStatement {

    /** The statement's name in the statements files. */
    public static final String NAME = "renew";

    private RenewStatement() {}

    /** One round trip renewing {@code holds}: for each, whether it still existed. */
    @FunctionalInterface
    public interface Batch {
        boolean[] renew(@Nullable String name, List<Hold> holds);
    }

    /**
     * Renews {@code renewals} in batches of at most {@code batchSize} holds, one round trip each, and
     * returns those no longer held. {@code name} is the lock's name in a batch of one, else null.
     */
    public static List<LockProvider.Renewal> lost(List<LockProvider.Renewal> renewals, int batchSize, Batch batch) {
        List<LockProvider.Renewal> lost = new ArrayList<>();
        for (int from = 0; from < renewals.size(); from += batchSize) {
            List<LockProvider.Renewal> chunk = renewals.subList(from, Math.min(renewals.size(), from + batchSize));
            List<Hold> holds = new ArrayList<>(chunk.size());
            for (LockProvider.Renewal r : chunk) {
                holds.add(new Hold(Keys.of(r.name()), r.owner(), r.lease()));
            }
            boolean[] renewed = batch.renew(chunk.size() == 1 ? chunk.get(0).name() : null, holds);
            for (int i = 0; i < renewed.length; i++) {
                if (!renewed[i]) {
                    lost.add(chunk.get(i));
                }
            }
        }
        return lost;
    }

    /**
     * One hold to renew: the statement's parameters (per hold, or as arrays over the holds).
     *
     * @param key the lock's row key
     * @param owner the holder
     * @param lease the new lease, from the database's now
     */
    public record Hold(String key, String owner, Duration lease) {

        /** The parameter names, in declaration order. */
        public static List<String> names() {
            return NamedSql.components(Hold.class);
        }
    }
}
