package io.lockkit.quarkus.deployment;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The dev-mode tests' application: plain Vert.x routes (no REST extension needed) over the injected
 * factory and {@link Counter}. {@link #GENERATION} is what a live reload changes.
 */
@ApplicationScoped
public class DevModeRoutes {

    /** Rewritten by the test to trigger a live reload; served at {@code /dev-mode/generation}. */
    static final String GENERATION = "first";

    @Inject
    DistributedLockFactory locks;

    @Inject
    Counter counter;

    /** Handles taken by {@code /dev-mode/hold/{name}} and never released by the application. */
    private final Map<String, LockHandle> held = new ConcurrentHashMap<>();

    void routes(@Observes Router router) {
        router.get("/dev-mode/generation").handler(rc -> rc.end(GENERATION));
        router.get("/dev-mode/redis-uri")
                .handler(rc -> rc.end(ConfigProvider.getConfig().getValue("quarkus.lockkit.redis.uri", String.class)));
        router.get("/dev-mode/backend")
                .blockingHandler(rc ->
                        rc.end(locks.operations().health(Duration.ofSeconds(10)).backend()));
        router.get("/dev-mode/client-id").handler(rc -> rc.end(locks.clientId()));
        router.post("/dev-mode/count/:name").blockingHandler(rc -> rc.end(String.valueOf(counter.increment(name(rc)))));
        router.post("/dev-mode/hold/:name").blockingHandler(rc -> {
            try {
                LockHandle handle = locks.acquire(name(rc));
                held.put(name(rc), handle);
                rc.end(String.valueOf(handle.fencingToken()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                rc.fail(e);
            }
        });
        router.get("/dev-mode/holder/:name")
                .blockingHandler(rc -> rc.end(locks.operations()
                        .inspect(name(rc))
                        .map(info -> info.clientId())
                        .orElse("")));
    }

    private static String name(RoutingContext rc) {
        return rc.pathParam("name");
    }
}
