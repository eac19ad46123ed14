package io.lockkit.jedis.support;

import io.lockkit.testkit.redis.RedisServer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Redis' {@code CLIENT LIST}, read through the fixture's own client. */
public final class ClientList {

    private ClientList() {}

    /** One map of field to value per connection. */
    public static List<Map<String, String>> read(RedisServer redis) {
        String list = String.valueOf(redis.command("CLIENT", "LIST"));
        return list.lines()
                .filter(line -> !line.isBlank())
                .map(line -> {
                    Map<String, String> fields = new HashMap<>();
                    for (String field : line.strip().split(" ", -1)) {
                        int eq = field.indexOf('=');
                        if (eq > 0) {
                            fields.put(field.substring(0, eq), field.substring(eq + 1));
                        }
                    }
                    return fields;
                })
                .toList();
    }
}
