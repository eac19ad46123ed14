package io.lockkit.cdi.internal.engine;

import io.lockkit.cdi.spi.AsyncType;
import io.lockkit.cdi.spi.LockedRuntime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LockedRuntime}s installed beside lock-cdi, as one: a thread must not block when any of
 * them says so, the body resumes on the first resume executor named, and the asynchronous types of
 * all are followed (the first to declare a type name wins). Loaded once, from lock-cdi's class loader.
 */
public final class LockedRuntimes {

    private static final LockedRuntimes INSTALLED = load();

    private final List<LockedRuntime> runtimes;
    private final Map<String, AsyncType> asyncTypes;

    LockedRuntimes(List<LockedRuntime> runtimes) {
        this.runtimes = List.copyOf(runtimes);
        Map<String, AsyncType> types = new LinkedHashMap<>();
        for (LockedRuntime runtime : runtimes) {
            for (AsyncType type : runtime.asyncTypes()) {
                types.putIfAbsent(type.typeName(), type);
            }
        }
        this.asyncTypes = Map.copyOf(types);
    }

    /** The runtimes found by the {@link ServiceLoader}. */
    public static LockedRuntimes installed() {
        return INSTALLED;
    }

    private static LockedRuntimes load() {
        List<LockedRuntime> found = new ArrayList<>();
        ServiceLoader.load(LockedRuntime.class, LockedRuntimes.class.getClassLoader())
                .forEach(found::add);
        return new LockedRuntimes(found);
    }

    /** Whether the calling thread must not block. */
    public boolean mustNotBlock() {
        for (LockedRuntime runtime : runtimes) {
            if (runtime.mustNotBlock()) {
                return true;
            }
        }
        return false;
    }

    /** Where an asynchronous body called on this thread resumes, or null for lockkit's thread. */
    public @Nullable Executor resumeExecutor() {
        for (LockedRuntime runtime : runtimes) {
            Executor executor = runtime.resumeExecutor();
            if (executor != null) {
                return executor;
            }
        }
        return null;
    }

    /** The adapter of return type {@code typeName}, or null. */
    public @Nullable AsyncType asyncType(String typeName) {
        return asyncTypes.get(typeName);
    }
}
