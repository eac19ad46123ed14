package io.lockkit.jdbc.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One statement of a dialect's statements file, its parameters named ({@code :key}, {@code :waitId}):
 * the text turned into JDBC {@code ?}s once, and the values bound from an argument record by
 * component name, so the SQL and the statement classes' records are held to one vocabulary (see
 * {@code SqlContractTest}). The one binder of every dialect. Immutable and thread-safe.
 *
 * <p>Values: a {@link Duration} is sent as whole microseconds, rounded up (a lease is never shorter
 * than asked); strings, numbers and booleans as they are; {@code null} as SQL NULL.
 */
public final class NamedSql {

    /** A quoted string (left alone), or a parameter not preceded by ':' (a PostgreSQL cast) or a word character. */
    private static final Pattern PARAMETER = Pattern.compile("'(?:[^']|'')*'|(?<![:\\w]):([a-zA-Z][a-zA-Z0-9]*)");

    private static final ClassValue<Map<String, Method>> ACCESSORS = new ClassValue<>() {
        @Override
        protected Map<String, Method> computeValue(Class<?> type) {
            Map<String, Method> out = new LinkedHashMap<>();
            RecordComponent[] components = type.getRecordComponents();
            if (components != null) {
                for (RecordComponent c : components) {
                    out.put(c.getName(), c.getAccessor());
                }
            }
            return Map.copyOf(out);
        }
    };

    private final String name;
    private final String jdbc;
    private final List<String> parameters;

    private NamedSql(String name, String jdbc, List<String> parameters) {
        this.name = name;
        this.jdbc = jdbc;
        this.parameters = parameters;
    }

    /** {@code text} with its {@code :parameters} found; quoted strings and {@code ::} casts are left alone. */
    public static NamedSql parse(String name, String text) {
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
        return new NamedSql(name, out.toString(), List.copyOf(names));
    }

    /** The statement's name in its file. */
    public String name() {
        return name;
    }

    /** The text with {@code ?} for each parameter. */
    public String jdbc() {
        return jdbc;
    }

    /** The parameter names in order of appearance (a name used twice appears twice). */
    public List<String> parameters() {
        return parameters;
    }

    /** The distinct parameter names. */
    public Set<String> parameterNames() {
        return new LinkedHashSet<>(parameters);
    }

    /** The component names of an argument record, in declaration order. */
    public static List<String> components(Class<? extends Record> args) {
        return List.copyOf(ACCESSORS.get(args).keySet());
    }

    /**
     * Binds every parameter from the component of {@code args} that has its name.
     *
     * @throws IllegalStateException when {@code args} has no component of a parameter's name
     */
    public void bind(PreparedStatement ps, Record args) throws SQLException {
        Map<String, Method> accessors = ACCESSORS.get(args.getClass());
        for (int i = 0; i < parameters.size(); i++) {
            set(ps, i + 1, value(accessors, args, parameters.get(i)));
        }
    }

    /**
     * Binds every parameter as an SQL array of that component over {@code rows} (PostgreSQL:
     * {@code unnest(:key::text[], ...)}), so one statement carries many rows.
     */
    public void bindArrays(PreparedStatement ps, Connection c, List<? extends Record> rows) throws SQLException {
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("rows must not be empty");
        }
        Map<String, Method> accessors = ACCESSORS.get(rows.get(0).getClass());
        for (int i = 0; i < parameters.size(); i++) {
            String p = parameters.get(i);
            @Nullable Object[] values = new Object[rows.size()];
            for (int r = 0; r < values.length; r++) {
                values[r] = value(accessors, rows.get(r), p);
            }
            ps.setArray(i + 1, c.createArrayOf(values[0] instanceof String ? "text" : "bigint", values));
        }
    }

    private @Nullable Object value(Map<String, Method> accessors, Record args, String parameter) {
        Method accessor = accessors.get(parameter);
        if (accessor == null) {
            throw new IllegalStateException("statement " + name + " takes :" + parameter + ", which "
                    + args.getClass().getName() + " lacks");
        }
        Object v;
        try {
            v = accessor.invoke(args);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException(
                    "cannot read " + parameter + " of " + args.getClass().getName(), e);
        }
        return v instanceof Duration d ? micros(d) : v;
    }

    private static void set(PreparedStatement ps, int index, @Nullable Object v) throws SQLException {
        if (v == null) {
            ps.setNull(index, Types.VARCHAR);
        } else if (v instanceof String s) {
            ps.setString(index, s);
        } else if (v instanceof Long l) {
            ps.setLong(index, l);
        } else if (v instanceof Integer n) {
            ps.setInt(index, n);
        } else if (v instanceof Boolean b) {
            ps.setBoolean(index, b);
        } else {
            ps.setObject(index, v);
        }
    }

    /** Whole microseconds, rounded up: a lease is never shorter than asked. */
    public static long micros(Duration d) {
        return d.getSeconds() * 1_000_000L + (d.getNano() + 999) / 1000;
    }

    /** A duration of {@code micros} microseconds (negative counts as zero). */
    public static Duration ofMicros(long micros) {
        long m = Math.max(0, micros);
        return Duration.ofSeconds(m / 1_000_000L, (m % 1_000_000L) * 1000);
    }

    @Override
    public String toString() {
        return name + ": " + jdbc;
    }
}
