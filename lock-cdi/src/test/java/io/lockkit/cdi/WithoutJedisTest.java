package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("an application without lock-jedis")
class WithoutJedisTest {

    @Test
    @DisplayName("fails its start, saying which dependency to add or which setting to change")
    void missingJedisFailsTheStart() throws Exception {
        List<URL> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String normalized = entry.replace('\\', '/');
            if (normalized.contains("lock-jedis") || normalized.contains("/redis/clients/")) {
                continue; // the application's class path lacks lockkit's Redis provider and Jedis
            }
            classPath.add(toUrl(entry));
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader application =
                new URLClassLoader(classPath.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(application);
            @SuppressWarnings("unchecked")
            Callable<String> start = (Callable<String>) application
                    .loadClass(StartWithoutJedis.class.getName())
                    .getDeclaredConstructor()
                    .newInstance();
            assertThat(start.call())
                    .contains("lockkit.provider (not set in")
                    .contains("default 'redis'")
                    .contains("no lock provider named 'redis' is on the class path: add a dependency on"
                            + " io.lockkit:lock-jedis; present: jdbc")
                    .contains("lockkit.provider=local");
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    private static URL toUrl(String entry) {
        try {
            return new File(entry).toURI().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs inside the class loader without Jedis: starts CDI and answers the start failure's messages. */
    public static class StartWithoutJedis implements Callable<String> {
        @Override
        public String call() {
            try {
                Lockkit.start("without-jedis", LockUser.class).close();
                return "started";
            } catch (RuntimeException e) {
                return String.join(" | ", StartupTest.rootMessages(e));
            }
        }
    }
}
