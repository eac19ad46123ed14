package io.lockkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("an application with lockkit.provider=jdbc but without lock-jdbc")
class WithoutJdbcTest {

    @Test
    @DisplayName("fails its start, naming the dependency to add")
    void missingJdbcProviderFailsTheStart() throws Exception {
        List<URL> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.replace('\\', '/').contains("lock-jdbc")) {
                continue; // the application's class path lacks lockkit's JDBC provider
            }
            classPath.add(new File(entry).toURI().toURL());
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        String before = System.getProperty("lockkit.provider");
        System.setProperty("lockkit.provider", "jdbc");
        try (URLClassLoader application =
                new URLClassLoader(classPath.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(application);
            @SuppressWarnings("unchecked")
            Callable<String> start = (Callable<String>) application
                    .loadClass(WithoutJedisTest.StartWithoutJedis.class.getName())
                    .getDeclaredConstructor()
                    .newInstance();
            assertThat(start.call())
                    .contains("lockkit: lockkit.provider = 'jdbc' (from ")
                    .contains("no lock provider named 'jdbc' is on the class path: add a dependency on"
                            + " io.lockkit:lock-jdbc; present: redis");
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
            if (before == null) {
                System.clearProperty("lockkit.provider");
            } else {
                System.setProperty("lockkit.provider", before);
            }
        }
    }
}
