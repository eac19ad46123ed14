package io.lockkit.benchmarks;

import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/** Writes records, maps, collections, strings, numbers, booleans and enums as indented JSON; no dependency. */
final class Json {

    private Json() {}

    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object v, int indent) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            string(sb, s);
        } else if (v instanceof Enum<?> e) {
            string(sb, e.name());
        } else if (v instanceof Double d) {
            sb.append(d.isNaN() || d.isInfinite() ? "null" : Double.toString(d));
        } else if (v instanceof Float f) {
            write(sb, f.doubleValue(), indent);
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                newline(sb, indent + 1);
                string(sb, String.valueOf(e.getKey() instanceof Enum<?> en ? en.name() : e.getKey()));
                sb.append(": ");
                write(sb, e.getValue(), indent + 1);
                if (it.hasNext()) {
                    sb.append(',');
                }
            }
            if (!m.isEmpty()) {
                newline(sb, indent);
            }
            sb.append('}');
        } else if (v instanceof Collection<?> c) {
            sb.append('[');
            Iterator<?> it = c.iterator();
            boolean simple = c.stream().allMatch(x -> x instanceof Number || x instanceof String);
            while (it.hasNext()) {
                if (!simple) {
                    newline(sb, indent + 1);
                }
                write(sb, it.next(), indent + 1);
                if (it.hasNext()) {
                    sb.append(simple ? ", " : ",");
                }
            }
            if (!simple && !c.isEmpty()) {
                newline(sb, indent);
            }
            sb.append(']');
        } else if (v instanceof Record r) {
            Map<String, Object> fields = new java.util.LinkedHashMap<>();
            for (RecordComponent rc : r.getClass().getRecordComponents()) {
                try {
                    rc.getAccessor().setAccessible(true);
                    fields.put(rc.getName(), rc.getAccessor().invoke(r));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
            write(sb, fields, indent);
        } else {
            string(sb, v.toString());
        }
    }

    private static void newline(StringBuilder sb, int indent) {
        sb.append('\n');
        sb.append("  ".repeat(indent));
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
