package io.lockkit.jdbc.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The lock table on PostgreSQL: every operation is one statement (see
 * {@code postgresql/statements.sql} for what each does and why). Thread-safe.
 */
// Design notes: the statements name their parameters (:key, :owner, ...), since several appear in
// more than one place; each is turned into JDBC '?' once, at construction, with the list of names
// in order, and bound by name on every call. '::' casts and string literals are left alone. A
// statement with a :lock_timeout_ms parameter (a call of the table's functions) bounds its own lock
// waits on the server and runs without a JDBC query timeout (see V1__lockkit_locks.sql).
public final class PostgresLockTable extends LockTable {

    /**
     * How many hand-overs in a row may go to a waiter of the releasing client ahead of an older
     * waiter of another client (as the Redis provider): 8.
     */
    public static final int MAX_LOCAL_STREAK = 8;

    private static final Pattern PARAMETER = Pattern.compile("'[^']*'|(?<![:\\w]):([a-z][a-z_]*)");

    /** The first key of the acquisitions' advisory gate: one namespace per lock table. */
    private final int gateNamespace;

    /** How long a waiter has to claim a lock handed to it. */
    private final long claimMicros;

    /** This provider's id in its hand-over notifications, so that it skips those it acted on already. */
    private final String origin;

    private final Map<String, Named> named = new HashMap<>();

    /** A statement with its parameters turned into '?', and their names in order. */
    private record Named(String sql, List<String> names) {
        static Named of(String text) {
            Matcher m = PARAMETER.matcher(text);
            StringBuilder out = new StringBuilder();
            List<String> names = new ArrayList<>();
            while (m.find()) {
                if (m.group(1) == null) {
                    m.appendReplacement(out, Matcher.quoteReplacement(m.group()));
                } else {
                    names.add(m.group(1));
                    m.appendReplacement(out, "?");
                }
            }
            m.appendTail(out);
            return new Named(out.toString(), List.copyOf(names));
        }
    }

    public PostgresLockTable(
            Map<String, String> placeholders, int queryTimeoutSeconds, long claimMicros, String origin) {
        super(SqlFile.statements("/io/lockkit/jdbc/postgresql/statements.sql", placeholders), queryTimeoutSeconds);
        this.gateNamespace = ("lockkit:" + placeholders.get("table")).hashCode();
        this.claimMicros = claimMicros;
        this.origin = origin;
        for (Map.Entry<String, String> e : sql.entrySet()) {
            named.put(e.getKey(), Named.of(e.getValue()));
        }
    }

    /** The statement {@code name} with {@code values} bound by parameter name. */
    private PreparedStatement bound(Connection c, String name, Map<String, Object> values) throws SQLException {
        Named n = java.util.Objects.requireNonNull(named.get(name), () -> "no statement named " + name);
        boolean bounded = n.names().contains("lock_timeout_ms");
        PreparedStatement ps = prepare(c, name, n.sql(), !bounded);
        try {
            for (int i = 0; i < n.names().size(); i++) {
                String p = n.names().get(i);
                if (p.equals("lock_timeout_ms")) {
                    ps.setInt(i + 1, queryTimeoutSeconds() * 1000);
                    continue;
                }
                if (!values.containsKey(p)) {
                    throw new IllegalStateException("statement " + name + " needs :" + p);
                }
                Object v = values.get(p);
                if (v == null) {
                    ps.setNull(i + 1, Types.VARCHAR);
                } else if (v instanceof Array a) {
                    ps.setArray(i + 1, a);
                } else {
                    ps.setObject(i + 1, v);
                }
            }
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
        return ps;
    }

    /** The client part of an owner id, "<client id>:", or null when the id has none. */
    static @Nullable String client(String owner) {
        int colon = owner.indexOf(':');
        return colon <= 0 ? null : owner.substring(0, colon + 1);
    }

    @Override
    public Attempt acquire(Connection c, Ask ask) throws SQLException {
        Map<String, Object> v = new HashMap<>();
        v.put("ns", gateNamespace);
        v.put("key", ask.key());
        v.put("name", ask.name());
        v.put("owner", ask.owner());
        v.put("lease", ask.leaseMicros());
        v.put("wait", ask.waitId());
        v.put("max_wait", ask.maxWaitMicros());
        v.put("claim", claimMicros);
        v.put("waiting", ask.waiting());
        try (PreparedStatement ps = bound(c, "acquire", v)) {
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return new Attempt(false, 0, -1);
                }
                long token = rs.getLong(1);
                if (!rs.wasNull()) {
                    return new Attempt(true, token, 0);
                }
                return new Attempt(false, 0, Math.max(0, rs.getLong(2)));
            }
        }
    }

    @Override
    public Released release(Connection c, String key, String owner, String channel) throws SQLException {
        Map<String, Object> v = new HashMap<>();
        v.put("key", key);
        v.put("owner", owner);
        v.put("client", client(owner));
        v.put("max_streak", MAX_LOCAL_STREAK);
        v.put("claim", claimMicros);
        v.put("channel", channel);
        v.put("origin", origin);
        try (PreparedStatement ps = bound(c, "release", v)) {
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? new Released(rs.getInt(1), rs.getString(2), rs.getLong(3), rs.getLong(4))
                        : new Released(NOT_HELD, null);
            }
        }
    }

    @Override
    public void abandon(Connection c, String key, String owner, long waitId, String channel) throws SQLException {
        Map<String, Object> v = new HashMap<>();
        v.put("key", key);
        v.put("owner", owner);
        v.put("wait", waitId);
        v.put("claim", claimMicros);
        v.put("channel", channel);
        try (PreparedStatement ps = bound(c, "abandon", v)) {
            ps.executeQuery().close();
        }
    }

    @Override
    public boolean queues() {
        return true;
    }

    @Override
    public boolean[] renew(Connection c, List<Hold> holds) throws SQLException {
        String[] keys = new String[holds.size()];
        String[] owners = new String[holds.size()];
        Long[] leases = new Long[holds.size()];
        for (int i = 0; i < holds.size(); i++) {
            keys[i] = holds.get(i).key();
            owners[i] = holds.get(i).owner();
            leases[i] = holds.get(i).leaseMicros();
        }
        Set<String> renewed = new HashSet<>();
        Map<String, Object> v = new HashMap<>();
        v.put("keys", c.createArrayOf("text", keys));
        v.put("owners", c.createArrayOf("text", owners));
        v.put("leases", c.createArrayOf("bigint", leases));
        try (PreparedStatement ps = bound(c, "renew", v)) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    renewed.add(rs.getString(1) + '\0' + rs.getString(2));
                }
            }
        }
        boolean[] out = new boolean[holds.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = renewed.contains(keys[i] + '\0' + owners[i]);
        }
        return out;
    }

    @Override
    public int forceRelease(Connection c, String key, String channel) throws SQLException {
        Map<String, Object> v = new HashMap<>();
        v.put("key", key);
        v.put("channel", channel);
        try (PreparedStatement ps = bound(c, "forceRelease", v)) {
            try (ResultSet rs = ps.executeQuery()) {
                return !rs.next() ? -1 : rs.getBoolean(1) ? 1 : 0;
            }
        }
    }

    @Override
    public Optional<Held> inspect(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = bound(c, "inspect", Map.of("key", key))) {
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(
                                new Held(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getLong(4), rs.getInt(5)))
                        : Optional.empty();
            }
        }
    }

    @Override
    public List<Listed> list(Connection c, String prefix, String afterKey, int limit) throws SQLException {
        try (PreparedStatement ps = bound(c, "list", Map.of("prefix", prefix, "after", afterKey, "limit", limit))) {
            try (ResultSet rs = ps.executeQuery()) {
                List<Listed> page = new ArrayList<>();
                while (rs.next()) {
                    page.add(new Listed(
                            rs.getString(1),
                            rs.getString(2),
                            new Held(rs.getString(3), rs.getInt(4), rs.getLong(5), rs.getLong(6), rs.getInt(7))));
                }
                return page;
            }
        }
    }

    @Override
    public boolean notifies() {
        return true;
    }
}
