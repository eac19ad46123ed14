package io.lockkit.examples.demo;

import io.lockkit.jedis.JedisLockProvider;
import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.RedisClient;

/**
 * The class path for worker JVMs: {@code java.class.path} when it holds the demo and its
 * dependencies ({@code java -cp}, {@code mvn exec:exec}, Surefire), otherwise the file URLs of the
 * class loaders that loaded the demo ({@code mvn exec:java}, which runs it in Maven's JVM).
 */
final class WorkerClassPath {

    /** Classes the workers need, one from each kind of dependency the demo can get in different ways. */
    private static final List<Class<?>> PROBES =
            List.of(CounterWorker.class, JedisLockProvider.class, RedisClient.class);

    private WorkerClassPath() {}

    /**
     * Finds the class path.
     *
     * @throws IllegalStateException when neither place holds every class a worker needs
     */
    static String resolve() {
        String fromProperty = System.getProperty("java.class.path", "");
        if (holdsProbes(fromProperty)) {
            return fromProperty;
        }
        Set<String> entries = new LinkedHashSet<>();
        for (ClassLoader l = CounterWorker.class.getClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader) {
                for (URL url : ((URLClassLoader) l).getURLs()) {
                    toPath(url).ifPresent(p -> entries.add(p.toString()));
                }
            }
        }
        String fromLoaders = String.join(File.pathSeparator, entries);
        if (holdsProbes(fromLoaders)) {
            return fromLoaders;
        }
        throw new IllegalStateException("cannot tell the class path for the worker JVMs: java.class.path ("
                + fromProperty + ") does not hold " + PROBES + "; run the demo with java -cp or mvn exec:exec");
    }

    private static boolean holdsProbes(String classPath) {
        List<Path> entries = new ArrayList<>();
        for (String e : classPath.split(File.pathSeparator, -1)) {
            if (!e.isBlank()) {
                try {
                    entries.add(Path.of(e).toAbsolutePath().normalize());
                } catch (InvalidPathException ignored) {
                    // Not a file; cannot be where a probe came from.
                }
            }
        }
        for (Class<?> probe : PROBES) {
            CodeSource source = probe.getProtectionDomain().getCodeSource();
            Optional<Path> location = source == null ? Optional.empty() : toPath(source.getLocation());
            if (location.isEmpty() || !entries.contains(location.get())) {
                return false;
            }
        }
        return true;
    }

    private static Optional<Path> toPath(URL url) {
        if (url == null || !"file".equals(url.getProtocol())) {
            return Optional.empty();
        }
        try {
            return Optional.of(Path.of(url.toURI()).toAbsolutePath().normalize());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
