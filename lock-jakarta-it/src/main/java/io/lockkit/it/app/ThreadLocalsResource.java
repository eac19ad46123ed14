package io.lockkit.it.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.lang.ref.Reference;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Every ThreadLocal entry in the server's JVM, in any thread, that holds something of lockkit's
 * (outside this test application): its ThreadLocal (or the initial-value supplier), its value, or
 * the elements of a collection or map value, as a leak check at undeploy sees them. One entry a
 * line, empty when there is none. Reads {@code java.lang} internals: the tests start the servers
 * with {@code --add-opens java.base/java.lang=ALL-UNNAMED}.
 */
@Path("/thread-locals")
@Produces(MediaType.TEXT_PLAIN)
public class ThreadLocalsResource {

    @GET
    public String lockkitEntries() throws ReflectiveOperationException {
        List<String> found = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            for (String mapField : new String[] {"threadLocals", "inheritableThreadLocals"}) {
                Object map = read(thread, Thread.class, mapField);
                Object table = map == null ? null : read(map, map.getClass(), "table");
                for (int i = 0; table != null && i < Array.getLength(table); i++) {
                    Object entry = Array.get(table, i);
                    if (entry == null) {
                        continue;
                    }
                    List<String> classes = new ArrayList<>();
                    Object key = ((Reference<?>) entry).get();
                    add(key, classes);
                    for (Class<?> c = key == null ? null : key.getClass(); c != null; c = c.getSuperclass()) {
                        if (c.getName().equals("java.lang.ThreadLocal$SuppliedThreadLocal")) {
                            add(read(key, c, "supplier"), classes);
                        }
                    }
                    Object value = read(entry, entry.getClass(), "value");
                    add(value, classes);
                    if (value instanceof Collection<?> elements) {
                        elements.forEach(e -> add(e, classes));
                    } else if (value instanceof Map<?, ?> entries) {
                        entries.forEach((k, v) -> {
                            add(k, classes);
                            add(v, classes);
                        });
                    }
                    if (classes.stream().anyMatch(ThreadLocalsResource::lockkit)) {
                        found.add(thread.getName() + " " + mapField + ": " + classes);
                    }
                }
            }
        }
        return found.stream().sorted().collect(Collectors.joining("\n"));
    }

    private static boolean lockkit(String className) {
        return className.startsWith("io.lockkit.") && !className.startsWith("io.lockkit.it.");
    }

    private static void add(Object o, List<String> into) {
        if (o != null) {
            into.add(o.getClass().getName());
        }
    }

    private static Object read(Object target, Class<?> type, String name) throws ReflectiveOperationException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(target);
    }
}
