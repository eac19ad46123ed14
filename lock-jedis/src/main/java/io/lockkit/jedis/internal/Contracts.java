package io.lockkit.jedis.internal;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;

/** What the script classes share: the argument names of a script are its arguments record's components. */
final class Contracts {

    private Contracts() {}

    static List<String> names(Class<? extends Record> args) {
        List<String> names = new ArrayList<>();
        for (RecordComponent c : args.getRecordComponents()) {
            names.add(c.getName());
        }
        return List.copyOf(names);
    }
}
