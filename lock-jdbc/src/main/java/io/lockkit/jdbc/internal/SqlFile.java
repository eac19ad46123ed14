package io.lockkit.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * SQL kept in resource files, written with the default names ({@code lockkit_locks} and the names
 * derived from it: {@code lockkit_locks_waiters}, {@code lockkit_locks_acquire}, ...), which are
 * replaced by the configured, validated table name. A statements file is split into sections that
 * start with a {@code -- :name <name>} line; a migration file into statements that end with
 * {@code ;} at a line's end, except within a routine body: between {@code $$} quotes (PostgreSQL),
 * or from a line {@code BEGIN} to a line {@code END;}, both at the line's start (MariaDB/MySQL).
 * Comment lines are dropped (so a {@code ?} or {@code :word} in a comment is never taken for a
 * parameter). Stateless.
 */
public final class SqlFile {

    /** The default table name, and the stem of every name derived from it. */
    public static final String DEFAULT_TABLE = "lockkit_locks";

    private static final Pattern NAMES = Pattern.compile("\\b" + DEFAULT_TABLE + "(\\w*)");

    private SqlFile() {}

    /** The named sections of a statements file, in order, the default names replaced by {@code table}. */
    public static Map<String, String> statements(String resource, String table) {
        Map<String, String> out = new LinkedHashMap<>();
        String current = null;
        StringBuilder body = new StringBuilder();
        for (String line : read(resource).split("\n", -1)) {
            String trimmed = line.trim();
            if (trimmed.startsWith("-- :name ")) {
                put(out, current, body, table);
                current = trimmed.substring("-- :name ".length()).trim();
                body.setLength(0);
            } else if (!trimmed.startsWith("--") && !trimmed.isEmpty()) {
                body.append(line).append('\n');
            }
        }
        put(out, current, body, table);
        return java.util.Collections.unmodifiableMap(out);
    }

    /** The statements of a migration file, in order, without comments, the default names replaced by {@code table}. */
    public static List<String> statementsOf(String resource, String table) {
        return split(rename(withoutComments(read(resource)), table));
    }

    /** {@code sql} with the default names replaced by {@code table} ({@code schema.table} allowed). */
    public static String rename(String sql, String table) {
        if (table.equals(DEFAULT_TABLE)) {
            return sql;
        }
        return NAMES.matcher(sql).replaceAll(Matcher.quoteReplacement(table) + "$1");
    }

    /** The text without its whole-line comments. */
    static String withoutComments(String text) {
        StringBuilder out = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (!line.trim().startsWith("--")) {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    /** Splits a migration's text into statements (see the class comment for where they end). */
    static List<String> split(String text) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean dollarQuoted = false;
        boolean routine = false;
        for (String line : text.split("\n", -1)) {
            current.append(line).append('\n');
            if ((line.split("\\$\\$", -1).length - 1) % 2 == 1) {
                dollarQuoted = !dollarQuoted;
            }
            if (!dollarQuoted && line.equals("BEGIN")) {
                routine = true;
            }
            boolean end = routine
                    ? line.equals("END;")
                    : !dollarQuoted && line.stripTrailing().endsWith(";");
            if (end) {
                routine = false;
                String sql = current.toString().trim();
                statements.add(sql.substring(0, sql.length() - 1).trim());
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            statements.add(current.toString().trim());
        }
        return statements;
    }

    /** The text of a resource of the lock-jdbc jar, line ends normalized to {@code \n}. */
    public static String read(String resource) {
        try (InputStream in = SqlFile.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " is missing from the lock-jdbc jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("\r\n", "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    private static void put(Map<String, String> out, @Nullable String name, StringBuilder body, String table) {
        if (name == null) {
            return;
        }
        String sql = body.toString().trim();
        if (sql.endsWith(";")) {
            sql = sql.substring(0, sql.length() - 1);
        }
        if (out.put(name, rename(sql, table)) != null) {
            throw new IllegalStateException("statement " + name + " is defined twice");
        }
    }
}
