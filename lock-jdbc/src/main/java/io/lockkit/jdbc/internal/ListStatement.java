package io.lockkit.jdbc.internal;

import io.lockkit.spi.LockProvider;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code list} statement of every dialect: one page of held locks whose names start with a
 * prefix, by keyset pagination on the row key. {@code SqlContractTest} holds the dialects' SQL to
 * these names. Values are immutable and thread-safe.
 */
public final class ListStatement {

    /** The statement's name in the statements files. */
    public static final String NAME = "list";

    /**
     * The reply's columns, in order: the key and name, then {@link InspectStatement#HOLDER_COLUMNS}
     * (a listing reads no weights or capacities).
     */
    public static final List<String> COLUMNS = columns();

    private ListStatement() {}

    private static List<String> columns() {
        List<String> all = new ArrayList<>(List.of("lock_key", "name"));
        all.addAll(InspectStatement.HOLDER_COLUMNS);
        return List.copyOf(all);
    }

    /**
     * The statement's parameters.
     *
     * @param prefix the start of the names, matched literally
     * @param after the last key of the previous page ({@code ""}: from the first)
     * @param limit the page size
     */
    public record Args(String prefix, String after, int limit) {

        /**
         * The arguments of a page, checked: {@code cursor} null for the first page, else the last key
         * of the previous one.
         *
         * @throws IllegalArgumentException naming a bad argument
         */
        public static Args of(String prefix, @Nullable String cursor, int pageSize) {
            LockProvider.ListPage.checkArguments(prefix, pageSize);
            if (cursor != null && !cursor.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException("cursor is not a listing cursor of this provider: '" + cursor + "'");
            }
            return new Args(prefix, cursor == null ? "" : cursor, pageSize);
        }

        /** The parameter names, in declaration order. */
        public static List<String> names() {
            return NamedSql.components(Args.class);
        }
    }

    /** One held lock of a page: its row key, name and state. */
    public record Row(String key, String name, InspectStatement.Held held) {}

    /** Reads every row of {@link #COLUMNS}: a lock per key (the rows of one key's holders are adjacent). */
    public static List<Row> decode(ResultSet rs) throws SQLException {
        List<Row> page = new ArrayList<>();
        while (rs.next()) {
            Row row = new Row(rs.getString(1), rs.getString(2), InspectStatement.held(rs, 3));
            int last = page.size() - 1;
            if (last >= 0 && page.get(last).key().equals(row.key())) {
                Row before = page.get(last);
                page.set(
                        last, new Row(before.key(), before.name(), before.held().and(row.held())));
            } else {
                page.add(row);
            }
        }
        return page;
    }
}
