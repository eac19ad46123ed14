package io.lockkit.cdi;

import java.lang.ref.Reference;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * What a thread's ThreadLocals hold of lockkit: entries whose ThreadLocal (or its initial-value
 * supplier), value, or the elements of a collection, map or array value are lockkit classes. Read
 * by reflection (the test JVM opens {@code java.lang}), as a server's leak check reads them.
 */
final class ThreadLocals {

    private ThreadLocals() {}

    /** One line per entry of {@code thread}'s ThreadLocals that holds something of lockkit. */
    static List<String> lockkitEntries(Thread thread) {
        List<String> found = new ArrayList<>();
        for (String mapField : new String[] {"threadLocals", "inheritableThreadLocals"}) {
            Object map = read(thread, Thread.class, mapField);
            if (map == null) {
                continue;
            }
            Object table = read(map, map.getClass(), "table");
            for (int i = 0; table != null && i < Array.getLength(table); i++) {
                Object entry = Array.get(table, i);
                if (entry == null) {
                    continue;
                }
                Object key = ((Reference<?>) entry).get();
                Object value = read(entry, entry.getClass(), "value");
                List<String> classes = new ArrayList<>();
                classesOf(key, classes);
                if (key != null) {
                    for (Class<?> c = key.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
                        if (c.getName().equals("java.lang.ThreadLocal$SuppliedThreadLocal")) {
                            classesOf(read(key, c, "supplier"), classes); // ThreadLocal.withInitial
                        }
                    }
                }
                classesOf(value, classes);
                if (value instanceof Collection<?> elements) {
                    elements.forEach(e -> classesOf(e, classes));
                } else if (value instanceof Map<?, ?> entries) {
                    entries.forEach((k, v) -> {
                        classesOf(k, classes);
                        classesOf(v, classes);
                    });
                } else if (value != null
                        && value.getClass().isArray()
                        && !value.getClass().getComponentType().isPrimitive()) {
                    for (int j = 0; j < Array.getLength(value); j++) {
                        classesOf(Array.get(value, j), classes);
                    }
                }
                if (classes.stream().anyMatch(name -> name.startsWith("io.lockkit."))) {
                    found.add(mapField + ": " + classes);
                }
            }
        }
        return found;
    }

    private static void classesOf(Object o, List<String> into) {
        if (o != null) {
            into.add(o.getClass().getName());
        }
    }

    private static Object read(Object target, Class<?> type, String name) {
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field.get(target);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "cannot read " + type.getName() + "." + name + " (is java.lang opened to the tests?)", e);
        }
    }
}
