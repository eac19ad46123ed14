package io.lockkit.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * SQL kept in resource files: a statements file is split into sections that start with a
 * {@code -- :name <name>} line; a DDL file into statements ending with {@code ;} at a line's end.
 * Comment lines are dropped (so a {@code ?} in a comment is never taken for a parameter) and
 * placeholders such as {@code {table}} are replaced by names the caller validated. Immutable.
 */
public final class SqlFile {

    private SqlFile() {}

    /** The named statements of {@code resource}, placeholders replaced. */
    public static Map<String, String> statements(String resource, Map<String, String> placeholders) {
        Map<String, String> out = new LinkedHashMap<>();
        String current = null;
        StringBuilder body = new StringBuilder();
        for (String line : read(resource).split("\n", -1)) {
            String trimmed = line.trim();
            if (trimmed.startsWith("-- :name ")) {
                put(out, current, body, placeholders);
                current = trimmed.substring("-- :name ".length()).trim();
                body.setLength(0);
            } else if (!trimmed.startsWith("--") && !trimmed.isEmpty()) {
                body.append(line).append('\n');
            }
        }
        put(out, current, body, placeholders);
        return Map.copyOf(out);
    }

    /** The statements of a DDL file, in order, without comments; {@code replacements} are literal. */
    public static List<String> ddl(String resource, Map<String, String> replacements) {
        StringBuilder text = new StringBuilder();
        for (String line : read(resource).split("\n", -1)) {
            if (!line.trim().startsWith("--")) {
                text.append(line).append('\n');
            }
        }
        String all = text.toString();
        for (Map.Entry<String, String> r : replacements.entrySet()) {
            all = all.replaceAll(
                    "\\b" + java.util.regex.Pattern.quote(r.getKey()) + "\\b",
                    java.util.regex.Matcher.quoteReplacement(r.getValue()));
        }
        // Statements end with ';' at a line's end, except inside a dollar-quoted function body.
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inBody = false;
        for (String line : all.split("\n", -1)) {
            current.append(line).append('\n');
            int quotes = line.split("\\$\\$", -1).length - 1;
            if (quotes % 2 == 1) {
                inBody = !inBody;
            }
            if (!inBody && line.stripTrailing().endsWith(";")) {
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

    /** The text of a resource beside this class's package root. */
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

    private static void put(
            Map<String, String> out, @Nullable String name, StringBuilder body, Map<String, String> placeholders) {
        if (name == null) {
            return;
        }
        String sql = body.toString().trim();
        if (sql.endsWith(";")) {
            sql = sql.substring(0, sql.length() - 1);
        }
        for (Map.Entry<String, String> p : placeholders.entrySet()) {
            sql = sql.replace("{" + p.getKey() + "}", p.getValue());
        }
        out.put(name, sql);
    }
}
